SELECT repl_key, db_action, db_schema, tablename, version, captured_at
  FROM ${schema}.${ddl_log}
 ORDER BY repl_key DESC
 LIMIT 20
