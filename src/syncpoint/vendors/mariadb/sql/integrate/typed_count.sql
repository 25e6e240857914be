-- The operations a window's typed staging holds, those without a key (the netting's
-- check; the source netted them), and the change records they carry: summed where each
-- net row carries its key's (from PostgreSQL), the least and the greatest where every
-- row carries the window's (from MariaDB: all equal).
SELECT count(*), COALESCE(SUM(sp_keyless), 0), COALESCE(SUM(sp_records), 0),
       MIN(sp_records), MAX(sp_records)
  FROM $raw{staging}
