-- The partition column's range and the row count of a table, read after the snapshot's
-- tick (a plain read: no lock that writers wait for).
SELECT min($raw{part}), max($raw{part}), count(*) FROM $raw{table}
