-- The current values of the given rows, to capture them again as UPDATE records whose old
-- and new content are both the row as it is now (after a column change: records written by
-- the triggers of the old shape between the ALTER and the new triggers miss the new columns).
-- Shared locks and separate inserts as in reload.sql.
SELECT $raw{row}
  FROM ${table} AS src
 WHERE $raw{where}
  LOCK IN SHARE MODE
