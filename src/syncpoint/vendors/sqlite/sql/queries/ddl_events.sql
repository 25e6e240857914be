SELECT repl_key, context, tablename, db_action, version, captured_at
  FROM ${items}
 WHERE db_action IN ('CREATE', 'ALTER', 'DROP', 'TRUNCATE')
 ORDER BY repl_key DESC
 LIMIT 20
