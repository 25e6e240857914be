-- The operations a window's typed staging holds, and those without a key (the netting's
-- check; the source netted them).
SELECT count(*), COALESCE(SUM(sp_keyless), 0) FROM $raw{staging}
