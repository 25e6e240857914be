SELECT location, table_name, state, t0, stream_id, lo, hi, next_lo, step, rows_copied,
       rows_estimated, truncate_pending, started_at, updated_at, finished_at
FROM ${snapshots} WHERE application_name = ?
ORDER BY location, table_name
