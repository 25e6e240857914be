-- Records of the ticks up to "upto": those in the ranges of those ticks.
SELECT i.repl_key
  FROM ${tick_ranges} r FORCE INDEX (by_tick) STRAIGHT_JOIN ${items} i FORCE INDEX (PRIMARY)
    ON i.repl_key BETWEEN r.lo AND r.hi
 WHERE r.tick_id <= %(upto)s AND IF(r.stamped = 1, i.context = r.tick_id, i.context IS NULL)
LIMIT $raw{limit}
