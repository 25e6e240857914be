-- Whether a table holds a row (0: empty), read by install after the table's capture
-- triggers exist: a row not seen here was written with the triggers in place.
SELECT count(*) FROM (SELECT 1 FROM $raw{table} LIMIT 1) sp_any
