-- The hand-over: in the same transaction as the table's position, set to t0.
UPDATE ${snapshots} SET state = 'done', finished_at = CURRENT_TIMESTAMP(6), updated_at = CURRENT_TIMESTAMP(6)
WHERE application_name = %s AND location = %s AND table_name = %s AND state = 'copying'
  AND t0 = %s
