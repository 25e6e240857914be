-- The records of one table (or of several: a round's survey of its group) in the window
-- (after, upto], for Spark's reader and the window reads that wrap it.
SELECT repl_key, context, trans_key, dbid, tablename, db_schema, db_action, content,
       oldcontent, DATE_FORMAT(captured_at, '%Y-%m-%d %H:%i:%s.%f') AS captured_at, version
  FROM ${db}.${items}
 WHERE tablename IN ($raw{tables}) AND db_schema IN ($raw{schemas})
   AND context > $raw{after} AND context <= $raw{upto}
 ORDER BY repl_key
