-- One chunk applied: in the same transaction as its rows.
UPDATE ${snapshots}
SET next_lo = %s, rows_copied = rows_copied + %s, truncate_pending = 0, updated_at = CURRENT_TIMESTAMP(6)
WHERE application_name = %s AND location = %s AND table_name = %s AND state = 'copying'
  AND t0 = %s
