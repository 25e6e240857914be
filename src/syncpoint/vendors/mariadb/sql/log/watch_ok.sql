-- A table captured from the log: nothing to settle, no trigger.
UPDATE ${tables}
   SET status = 'OK', reason = NULL, trigger_name = NULL, trigger_version = version,
       refresh_from = NULL, pending_event = NULL
 WHERE schemaname = %(schema)s AND tablename = %(table)s
