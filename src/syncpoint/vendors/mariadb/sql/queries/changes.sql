SELECT repl_key, context, trans_key, dbid, tablename, db_schema, db_action, content,
       oldcontent, captured_at, version, db_catalog, guid
  FROM ${items}
 WHERE tablename = %(table)s AND db_schema = %(schema)s
   AND context > %(after)s AND context <= %(upto)s
 ORDER BY repl_key
