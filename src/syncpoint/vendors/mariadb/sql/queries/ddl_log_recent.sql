SELECT repl_key, tablename, db_action, version, captured_at, detail
  FROM ${ddl_log} ORDER BY repl_key DESC LIMIT 20
