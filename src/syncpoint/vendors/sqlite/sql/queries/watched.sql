SELECT tablename, actions, status, reason, repl_key, trigger_name, debug, version, key_columns,
       catalogname
  FROM ${tables}
 ORDER BY tablename
