INSERT INTO ${stops} (application_name, location, table_name, sync_name, context, repl_key, reason)
VALUES (%s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (application_name, location, table_name) DO UPDATE SET
    sync_name = EXCLUDED.sync_name, context = EXCLUDED.context, repl_key = EXCLUDED.repl_key,
    reason = EXCLUDED.reason, stopped_at = clock_timestamp()
