-- Compare-and-set of the positions of many tables of one location that a round moves from
-- the same tick to the same tick, in one statement (the caller checks that every one of
-- them matched: the row count is the number of tables named).
UPDATE ${positions} SET context = ?, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
WHERE application_name = ? AND location = ? AND context = ? AND stream_id = ?
  AND table_name IN ($raw{tables})
