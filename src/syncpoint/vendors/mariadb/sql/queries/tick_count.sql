-- The records of a tick and the highest key among them (log capture writes its records
-- already in the tick, so stamping alone does not count them).
SELECT COUNT(*), COALESCE(MAX(repl_key), 0) FROM ${items} WHERE context = %s
