SELECT repl_key, context, CAST(trans_key AS TEXT) AS trans_key, dbid, tablename, db_schema,
       db_action, content, oldcontent, captured_at, version, db_catalog, guid
  FROM ${items}
 WHERE tablename = ? AND context > ? AND context <= ?
 ORDER BY repl_key
