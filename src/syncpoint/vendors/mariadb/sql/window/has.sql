-- Whether a window holds one record (to find the tick that holds a DDL event).
SELECT count(*) FROM ($raw{query}) q WHERE q.repl_key = $raw{repl_key}
