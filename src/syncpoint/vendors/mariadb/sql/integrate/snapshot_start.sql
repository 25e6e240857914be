-- A new (or restarted) snapshot of one table starts copying.
INSERT INTO ${snapshots} (application_name, location, table_name, state, t0, stream_id, lo,
    hi, next_lo, step, rows_copied, rows_estimated, truncate_pending, started_at, updated_at)
VALUES (%s, %s, %s, 'copying', %s, %s, %s, %s, %s, %s, 0, %s, %s, CURRENT_TIMESTAMP(6), CURRENT_TIMESTAMP(6))
