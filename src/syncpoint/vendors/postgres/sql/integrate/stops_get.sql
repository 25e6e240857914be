SELECT location, table_name, sync_name, context, repl_key, reason, stopped_at FROM ${stops}
WHERE application_name = %s
