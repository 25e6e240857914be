SELECT content FROM ${staging} WHERE round_id = ? AND tbl = ? AND action = ? ORDER BY repl_key
