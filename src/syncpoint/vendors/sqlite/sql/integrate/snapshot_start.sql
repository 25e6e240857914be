-- A new (or restarted) snapshot of one table starts copying.
INSERT INTO ${snapshots} (application_name, location, table_name, state, t0, stream_id, lo,
    hi, next_lo, step, rows_copied, rows_estimated, truncate_pending, started_at, updated_at)
VALUES (?, ?, ?, 'copying', ?, ?, ?, ?, ?, ?, 0, ?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now'), strftime('%Y-%m-%d %H:%M:%f', 'now'))
