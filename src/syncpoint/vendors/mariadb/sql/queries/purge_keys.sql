SELECT repl_key FROM ${items} WHERE context <= %(upto)s ORDER BY context LIMIT $raw{limit}
