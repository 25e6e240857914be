-- Records of the ticks up to "upto": stamped, or in the ranges of those ticks.
SELECT repl_key FROM ${items} WHERE context <= %(upto)s
UNION ALL
SELECT i.repl_key
  FROM ${tick_ranges} r FORCE INDEX (by_tick) STRAIGHT_JOIN ${items} i FORCE INDEX (PRIMARY)
    ON i.repl_key BETWEEN r.lo AND r.hi
 WHERE r.tick_id <= %(upto)s AND i.context IS NULL
LIMIT $raw{limit}
