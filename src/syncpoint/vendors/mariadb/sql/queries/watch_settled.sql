UPDATE ${tables}
   SET status = 'OK', reason = NULL, trigger_name = %(triggers)s,
       trigger_version = version, refresh_from = NULL, pending_event = NULL
 WHERE schemaname = %(schema)s AND tablename = %(table)s
