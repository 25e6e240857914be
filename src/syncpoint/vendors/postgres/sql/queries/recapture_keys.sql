-- The keys (as JSON array text) of one table's row records after the newest tick: what the
-- old triggers wrote since the last poll.
SELECT json_build_array($raw{key})::text
  FROM ${schema}.${items} AS i, ${schema}.${service} AS s
 WHERE i.tablename = %(old_table)s AND i.db_schema = %(old_schema)s
   AND i.db_action IN ('INSERT', 'UPDATE')
   AND i.trans_key >= pg_snapshot_xmin((SELECT ${schema}.${fn_snap}(s.context)))
   AND NOT pg_visible_in_snapshot(i.trans_key, (SELECT ${schema}.${fn_snap}(s.context)))
