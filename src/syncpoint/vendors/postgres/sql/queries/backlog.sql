-- The records of one table after tick "after" that this statement sees committed, ticked
-- or not yet: what status counts as the backlog without making a tick (it writes nothing).
SELECT i.repl_key, i.captured_at
  FROM ${schema}.${items} AS i
 WHERE i.tablename = $raw{table}
   AND i.db_schema = $raw{schema}
   AND i.trans_key >= pg_snapshot_xmin((SELECT ${schema}.${fn_snap}($raw{after})))
   AND NOT pg_visible_in_snapshot(i.trans_key, (SELECT ${schema}.${fn_snap}($raw{after})))
