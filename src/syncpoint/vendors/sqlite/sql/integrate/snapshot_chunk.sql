-- One chunk applied: in the same transaction as its rows.
UPDATE ${snapshots}
SET next_lo = ?, rows_copied = rows_copied + ?, truncate_pending = 0, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE application_name = ? AND location = ? AND table_name = ? AND state = 'copying'
  AND t0 = ?
