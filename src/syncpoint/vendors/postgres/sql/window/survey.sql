-- Per table, what one window over many tables holds (a round's or status's one query per
-- location): its records' bounds and count, the oldest capture time, how many are DDL
-- (sp_captured_at: the time as stored, the text's to_char of every record was half the
-- query's time).
SELECT q.db_schema, q.tablename, min(q.repl_key), max(q.repl_key), count(*),
       min(q.sp_captured_at),
       sum(CASE WHEN q.db_action IN ('INSERT', 'UPDATE', 'DELETE') THEN 0 ELSE 1 END)
FROM ($raw{query}) q
GROUP BY q.db_schema, q.tablename
