-- The records of one table (or of several: a round's survey of its group) in the window
-- (after, upto], for Spark's reader and the window reads that wrap it. One join, so that a
-- read wrapping it is merged with it (its bounds of repl_key become the join's range; only
-- the columns it uses are read), of the queue with the window's key intervals: the ranges
-- of its ticks (records without a context) joined where one ends next to the next, and one
-- interval over its ticks' stamped ranges (records with a context in the window). So a
-- window of many ticks joins a few intervals, not a range a tick. No order: the reads that
-- wrap it need none.
SELECT i.repl_key,
       COALESCE(i.context,
                (SELECT r.tick_id FROM ${db}.${tick_ranges} r
                  WHERE r.lo <= i.repl_key AND r.stamped = 0 ORDER BY r.lo DESC LIMIT 1))
         AS context,
       i.trans_key, i.dbid, i.tablename, i.db_schema, i.db_action, i.content, i.oldcontent,
       DATE_FORMAT(i.captured_at, '%Y-%m-%d %H:%i:%s.%f') AS captured_at, i.version
  FROM (
    SELECT MIN(lo) AS lo, MAX(hi) AS hi, 0 AS stamped FROM (
      SELECT lo, hi, SUM(brk) OVER (ORDER BY lo) AS run FROM (
        SELECT lo, hi, IF(lo = LAG(hi) OVER (ORDER BY lo) + 1, 0, 1) AS brk
          FROM ${db}.${tick_ranges}
         WHERE tick_id > $raw{after} AND tick_id <= $raw{upto} AND stamped = 0
      ) sp_b
    ) sp_g GROUP BY run
    UNION ALL
    SELECT MIN(lo), MAX(hi), 1 FROM ${db}.${tick_ranges}
     WHERE tick_id > $raw{after} AND tick_id <= $raw{upto} AND stamped = 1 HAVING COUNT(*) > 0
  ) w STRAIGHT_JOIN ${db}.${items} i FORCE INDEX (PRIMARY) ON i.repl_key BETWEEN w.lo AND w.hi
 WHERE IF(w.stamped = 1, i.context > $raw{after} AND i.context <= $raw{upto}, i.context IS NULL)
   AND i.tablename IN ($raw{tables}) AND i.db_schema IN ($raw{schemas})
