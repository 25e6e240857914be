-- A table's records in the window (after, upto]: stamped with a tick in it, or in the ranges
-- of those ticks (their context is the range's tick).
SELECT repl_key, context, trans_key, dbid, tablename, db_schema, db_action, content,
       oldcontent, captured_at, version, db_catalog, guid
  FROM ${items}
 WHERE tablename = %(table)s AND db_schema = %(schema)s
   AND context > %(after)s AND context <= %(upto)s
UNION ALL
SELECT i.repl_key, r.tick_id, i.trans_key, i.dbid, i.tablename, i.db_schema, i.db_action,
       i.content, i.oldcontent, i.captured_at, i.version, i.db_catalog, i.guid
  FROM ${tick_ranges} r FORCE INDEX (by_tick) STRAIGHT_JOIN ${items} i FORCE INDEX (PRIMARY)
    ON i.repl_key BETWEEN r.lo AND r.hi
 WHERE r.tick_id > %(after)s AND r.tick_id <= %(upto)s AND i.context IS NULL
   AND i.tablename = %(table)s AND i.db_schema = %(schema)s
 ORDER BY repl_key
