INSERT INTO ${tables} (catalogname, schemaname, tablename, actions, status, reason, repl_key,
                       trigger_name, debug, version, key_columns)
VALUES (?, 'main', ?, ?, 'CREATING', NULL, ?, NULL, ?, 1, ?)
ON CONFLICT (tablename) DO UPDATE
   SET catalogname = excluded.catalogname, actions = excluded.actions,
       debug = excluded.debug, key_columns = excluded.key_columns
