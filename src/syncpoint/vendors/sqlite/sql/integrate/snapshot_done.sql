-- The hand-over: in the same transaction as the table's position, set to t0.
UPDATE ${snapshots} SET state = 'done', finished_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE application_name = ? AND location = ? AND table_name = ? AND state = 'copying'
  AND t0 = ?
