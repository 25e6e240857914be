-- The records of one table (or of several: status's one query per location) after tick
-- "after": in the ranges of a later tick, or in no tick yet (committed: a consistent read
-- shows no other) - above max_key or in a hole: status's backlog without making a tick.
SELECT i.repl_key, i.captured_at, i.db_schema, i.tablename, i.db_action
  FROM ${db}.${tick_ranges} r FORCE INDEX (by_tick)
       STRAIGHT_JOIN ${db}.${items} i FORCE INDEX (PRIMARY) ON i.repl_key BETWEEN r.lo AND r.hi
 WHERE r.tick_id > $raw{after}
   AND IF(r.stamped = 1, i.context = r.tick_id, i.context IS NULL)
   AND i.tablename IN ($raw{tables}) AND i.db_schema IN ($raw{schemas})
UNION ALL
SELECT repl_key, captured_at, db_schema, tablename, db_action
  FROM ${db}.${items}
 WHERE tablename IN ($raw{tables}) AND db_schema IN ($raw{schemas}) AND context IS NULL
   AND repl_key > (SELECT max_key FROM ${db}.${service_context} WHERE id = 1)
UNION ALL
SELECT i.repl_key, i.captured_at, i.db_schema, i.tablename, i.db_action
  FROM ${db}.${tick_holes} h
       STRAIGHT_JOIN ${db}.${items} i FORCE INDEX (PRIMARY) ON i.repl_key BETWEEN h.lo AND h.hi
 WHERE i.context IS NULL AND i.tablename IN ($raw{tables}) AND i.db_schema IN ($raw{schemas})
