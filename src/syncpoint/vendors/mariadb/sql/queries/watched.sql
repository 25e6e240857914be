SELECT schemaname, tablename, actions, status, reason, repl_key, trigger_name, debug, version,
       trigger_version, inno_id, created, witness, keycols, refresh_from,
       pending_event
  FROM ${tables}
 ORDER BY schemaname, tablename
