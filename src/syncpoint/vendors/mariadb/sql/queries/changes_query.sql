SELECT repl_key, context, trans_key, dbid, tablename, db_schema, db_action, content,
       oldcontent, DATE_FORMAT(captured_at, '%Y-%m-%d %H:%i:%s.%f') AS captured_at, version
  FROM ${db}.${items}
 WHERE tablename = $lit{table} AND db_schema = $lit{schema}
   AND context > $raw{after} AND context <= $raw{upto}
 ORDER BY repl_key
