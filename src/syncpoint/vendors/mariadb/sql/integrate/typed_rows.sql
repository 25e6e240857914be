-- The rows of a round's typed staging and of them the upserts (the apply's check).
SELECT count(*), COALESCE(SUM(sp_action = 'U'), 0) FROM $raw{staging}
