INSERT INTO ${stops} (application_name, location, table_name, sync_name, context, repl_key, reason)
VALUES (%s, %s, %s, %s, %s, %s, %s)
ON DUPLICATE KEY UPDATE
    sync_name = VALUES(sync_name), context = VALUES(context), repl_key = VALUES(repl_key),
    reason = VALUES(reason), stopped_at = CURRENT_TIMESTAMP(6)
