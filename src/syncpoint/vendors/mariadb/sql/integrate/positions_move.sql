-- Compare-and-set of the positions of many tables of one location that a round moves from
-- the same tick to the same tick, in one statement (the caller checks that every one of
-- them matched: the row count is the number of tables named).
UPDATE ${positions} SET context = %s, updated_at = CURRENT_TIMESTAMP(6)
WHERE application_name = %s AND location = %s AND context = %s AND stream_id = %s
  AND table_name IN ($raw{tables})
