-- The records of one table (or of several: a round's survey of its group) in the window
-- (after, upto], for Spark's reader and the window reads that wrap it: those in the ranges
-- of the window's ticks. One join, so that a read wrapping it is merged with it (its bounds
-- of repl_key become the join's range; only the columns it uses are read). No order: the
-- reads that wrap it need none.
SELECT i.repl_key, r.tick_id AS context, i.trans_key, i.dbid, i.tablename, i.db_schema,
       i.db_action, i.content, i.oldcontent,
       DATE_FORMAT(i.captured_at, '%Y-%m-%d %H:%i:%s.%f') AS captured_at, i.version
  FROM ${db}.${tick_ranges} r FORCE INDEX (by_tick)
       STRAIGHT_JOIN ${db}.${items} i FORCE INDEX (PRIMARY) ON i.repl_key BETWEEN r.lo AND r.hi
 WHERE r.tick_id > $raw{after} AND r.tick_id <= $raw{upto}
   AND IF(r.stamped = 1, i.context = r.tick_id, i.context IS NULL)
   AND i.tablename IN ($raw{tables}) AND i.db_schema IN ($raw{schemas})
