-- A table's records in the window (after, upto], in the ranges of the window's ticks.
SELECT i.repl_key, r.tick_id, i.trans_key, i.dbid, i.tablename, i.db_schema, i.db_action,
       i.content, i.oldcontent, i.captured_at, i.version, i.db_catalog, i.guid
  FROM ${tick_ranges} r FORCE INDEX (by_tick) STRAIGHT_JOIN ${items} i FORCE INDEX (PRIMARY)
    ON i.repl_key BETWEEN r.lo AND r.hi
 WHERE r.tick_id > %(after)s AND r.tick_id <= %(upto)s
   AND IF(r.stamped = 1, i.context = r.tick_id, i.context IS NULL)
   AND i.tablename = %(table)s AND i.db_schema = %(schema)s
 ORDER BY i.repl_key
