-- The records of one table (or of several: a round's survey of its group) in the window
-- (after, upto], for Spark's reader and the window reads that wrap it: stamped with a tick in
-- it, or in the ranges of those ticks (their context is the range's tick).
SELECT repl_key, context, trans_key, dbid, tablename, db_schema, db_action, content,
       oldcontent, DATE_FORMAT(captured_at, '%Y-%m-%d %H:%i:%s.%f') AS captured_at, version
  FROM ${db}.${items}
 WHERE tablename IN ($raw{tables}) AND db_schema IN ($raw{schemas})
   AND context > $raw{after} AND context <= $raw{upto}
UNION ALL
SELECT i.repl_key, r.tick_id, i.trans_key, i.dbid, i.tablename, i.db_schema, i.db_action,
       i.content, i.oldcontent, DATE_FORMAT(i.captured_at, '%Y-%m-%d %H:%i:%s.%f'), i.version
  FROM ${db}.${tick_ranges} r FORCE INDEX (by_tick)
       STRAIGHT_JOIN ${db}.${items} i FORCE INDEX (PRIMARY) ON i.repl_key BETWEEN r.lo AND r.hi
 WHERE r.tick_id > $raw{after} AND r.tick_id <= $raw{upto} AND i.context IS NULL
   AND i.tablename IN ($raw{tables}) AND i.db_schema IN ($raw{schemas})
 ORDER BY repl_key
