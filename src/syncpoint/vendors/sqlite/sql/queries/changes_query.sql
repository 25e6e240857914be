SELECT repl_key, context, CAST(trans_key AS TEXT) AS trans_key, dbid, tablename, db_schema,
       db_action, content, oldcontent, captured_at, version
  FROM ${items}
 WHERE tablename = $lit{table} AND context > $raw{after} AND context <= $raw{upto}
 ORDER BY repl_key
