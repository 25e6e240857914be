-- Compare-and-set: moves only the position this round started from.
UPDATE ${positions} SET context = %s, updated_at = clock_timestamp()
WHERE application_name = %s AND location = %s AND table_name = %s
  AND context = %s AND stream_id = %s
