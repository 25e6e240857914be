-- Compare-and-set: moves only the position this round started from.
UPDATE ${positions} SET context = ?, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE application_name = ? AND location = ? AND table_name = ? AND context = ? AND stream_id = ?
