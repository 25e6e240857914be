INSERT INTO ${stops} (application_name, location, table_name, sync_name, context, repl_key, reason)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (application_name, location, table_name) DO UPDATE SET
    sync_name = excluded.sync_name, context = excluded.context, repl_key = excluded.repl_key,
    reason = excluded.reason, stopped_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
