-- The records of one table (or of several: status's one query per location) after tick
-- "after" that this statement sees committed, ticked or not yet: what status counts as the
-- backlog without making a tick (it writes nothing). Not seen by "after": past its xmax or
-- open then (see changes.sql).
SELECT i.repl_key, i.captured_at, i.db_schema, i.tablename, i.db_action,
       i.captured_at AS sp_captured_at
  FROM ${schema}.${items} AS i
 WHERE i.tablename IN ($raw{table})
   AND i.db_schema IN ($raw{schema})
   AND (i.trans_key >= pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{after})))
        OR i.trans_key = ANY (ARRAY(SELECT pg_snapshot_xip(${schema}.${fn_snap}($raw{after})))))
   AND NOT pg_visible_in_snapshot(i.trans_key, (SELECT ${schema}.${fn_snap}($raw{after})))
