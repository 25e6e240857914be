-- Compare-and-set: moves only the position this round started from (a round only stores
-- positions that change, so the affected-row count is 1 exactly when the row matched).
UPDATE ${positions} SET context = %s, updated_at = CURRENT_TIMESTAMP(6)
WHERE application_name = %s AND location = %s AND table_name = %s
  AND context = %s AND stream_id = %s
