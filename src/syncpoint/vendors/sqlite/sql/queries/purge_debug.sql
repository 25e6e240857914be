DELETE FROM ${debug_table} WHERE repl_key <= ?
