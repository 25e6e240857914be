-- The operations a window's typed staging holds, those without a key (the netting's
-- check; the source netted them), and the window's change records (each net row carries
-- its key's).
SELECT count(*), COALESCE(SUM(sp_keyless), 0), COALESCE(SUM(sp_records), 0) FROM $raw{staging}
