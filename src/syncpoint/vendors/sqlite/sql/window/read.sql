-- Row records of a window for Spark, with their keys as JSON text made by this database
-- (sp_key from content, sp_old_key from oldcontent). Only the records of changes first made
-- at this location are read (dbid is the location where the change was made,
-- carried unchanged by every apply): a change applied here from elsewhere is read by every
-- other integrate location at its own origin, so it is never sent back nor twice.
SELECT q.repl_key, q.db_action, q.content, q.oldcontent, q.dbid,
       $raw{key} AS sp_key, $raw{old_key} AS sp_old_key
FROM ($raw{query}) q
WHERE q.db_action IN ('INSERT', 'UPDATE', 'DELETE') AND q.repl_key > $raw{rows_after}
  $raw{origin}
