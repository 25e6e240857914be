-- 1. The conflicts: the local row is a newer incarnation, or it changed since the version
--    the delete was made from.
INSERT INTO ${conflicts} (table_name, `key`, column_group, local_row, local_version,
                          remote_row, remote_version, resolution, winner)
SELECT %(table)s, d.sp_k, '*', $raw{local_row}, $raw{newest_l}, d.sp_c, d.sp_dv, %(rule)s,
       CASE WHEN d.sp_del = 1 THEN 'remote' ELSE 'local' END
  FROM ${d} d JOIN $raw{target} t ON $raw{match}
 WHERE d.sp_lkv > $raw{rkv} OR (d.sp_lkv = $raw{rkv} AND $raw{changed})
---
-- 2. Tombstones; two deletes of one incarnation keep the version the rule prefers, so
--    every site ends with the same one (a tombstone whose delete was not seen here, '',
--    takes the delete's).
INSERT INTO ${tombstones} (table_name, `key`, kv, version, deleted_at)
SELECT %(table)s, d.sp_k, $raw{rkv}, COALESCE(d.sp_dv, ''), UTC_TIMESTAMP(6)
  FROM ${d} d WHERE d.sp_tomb = 1
ON DUPLICATE KEY UPDATE
   version = IF(version = '' OR VALUES(version) $raw{op} version, VALUES(version), version)
---
-- 3. The deletes that take effect.
DELETE t FROM $raw{target} t JOIN ${d} d ON $raw{match} WHERE d.sp_del = 1
