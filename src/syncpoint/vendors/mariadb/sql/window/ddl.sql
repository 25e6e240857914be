-- The DDL records of a window, in position order.
SELECT q.repl_key, q.db_action, q.content, q.oldcontent FROM ($raw{query}) q
WHERE q.db_action NOT IN ('INSERT', 'UPDATE', 'DELETE') ORDER BY q.repl_key
