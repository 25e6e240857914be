SELECT repl_key, db_action, db_schema, tablename, version, captured_at
  FROM ${schema}.${items}
 WHERE db_action IN ('CREATE', 'ALTER', 'DROP', 'TRUNCATE')
 ORDER BY repl_key DESC
 LIMIT 20
