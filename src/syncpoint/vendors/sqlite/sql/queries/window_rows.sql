-- The row records of a table that no tick has stamped yet (after a column change: what the
-- triggers of the old shape captured), oldest first.
SELECT content, oldcontent
  FROM ${items}
 WHERE tablename = ? AND context IS NULL AND db_action IN ('INSERT', 'UPDATE', 'DELETE')
 ORDER BY repl_key
