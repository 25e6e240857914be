-- The records of one table (or of several: a round's survey of its group) in the window
-- (after, upto], for Spark's reader and the window reads that wrap it.
SELECT repl_key, context, CAST(trans_key AS TEXT) AS trans_key, dbid, tablename, db_schema,
       db_action, content, oldcontent, captured_at, version
  FROM ${items}
 WHERE tablename IN ($raw{tables}) AND context > $raw{after} AND context <= $raw{upto}
 ORDER BY repl_key
