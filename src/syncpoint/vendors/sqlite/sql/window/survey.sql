-- Per table, what one window over many tables holds (a round's or status's one query per
-- location): its records' bounds and count, the oldest capture time, how many are DDL. A
-- SQLite file has one schema: tables go by their names.
SELECT '' AS db_schema, q.tablename, min(q.repl_key), max(q.repl_key), count(*),
       min(q.captured_at),
       sum(CASE WHEN q.db_action IN ('INSERT', 'UPDATE', 'DELETE') THEN 0 ELSE 1 END)
FROM ($raw{query}) q
GROUP BY q.tablename
