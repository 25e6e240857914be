SELECT max(repl_key) FROM ${items} WHERE context <= ?
