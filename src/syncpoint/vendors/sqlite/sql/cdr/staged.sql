SELECT repl_key, content FROM ${staging}
 WHERE round_id = :round_id AND tbl = :tbl AND action = :action ORDER BY repl_key
