-- The records of one table (or of several: a round's survey of its group) in the window
-- (after, upto]: those of transactions the tick "upto" sees committed and the tick "after"
-- does not, in repl_key order when read as records (the window reads that wrap this text, counts, stats and Spark's, need no order:
-- a sort of the whole window in each of them was a cost the profile found at the source). The trans_key prefilter is
-- what the index serves; the snapshots (one lookup each, raising when a tick is missing) decide.
-- A transaction "after" does not see is one at or past its xmax, or one of its xip list
-- (as PgQ reads its batches): an index range from xmax and one lookup for each open
-- transaction, not a range from xmin, which a transaction left open at the source holds
-- back while everything written since piles up in it.
SELECT i.repl_key,
       $raw{context} AS context,
       i.trans_key::text AS trans_key,
       i.dbid,
       i.tablename,
       i.db_schema,
       i.db_action,
       i.content,
       i.oldcontent,
       to_char(i.captured_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS captured_at,
       i.version$raw{extra}
  FROM ${schema}.${items} AS i
 WHERE i.tablename IN ($raw{table})
   AND i.db_schema IN ($raw{schema})
   AND (i.trans_key >= pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{after})))
        OR i.trans_key = ANY (ARRAY(SELECT pg_snapshot_xip(${schema}.${fn_snap}($raw{after})))))
   AND i.trans_key < pg_snapshot_xmax((SELECT ${schema}.${fn_snap}($raw{upto})))
   AND NOT pg_visible_in_snapshot(i.trans_key, (SELECT ${schema}.${fn_snap}($raw{after})))
   AND pg_visible_in_snapshot(i.trans_key, (SELECT ${schema}.${fn_snap}($raw{upto})))
 $raw{order}
