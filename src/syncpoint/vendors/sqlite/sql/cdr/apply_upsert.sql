-- 1. The conflicts, before anything changes: per group changed on both sides since the
--    version the change was made from; a change of an older incarnation; a change meeting
--    a tombstone of its own or a newer incarnation; per group of a deleted row made again.
INSERT INTO ${conflicts} (table_name, key, column_group, local_row, local_version,
                          remote_row, remote_version, resolution, winner)
$raw{group_conflicts}
UNION ALL
SELECT :table, d.sp_k, '*', $raw{local_row}, $raw{lkv_text}, d.sp_c, $raw{rkv_text},
       :rule, 'local'
  FROM ${d} AS d JOIN $raw{target} AS t ON $raw{match}
 WHERE d.sp_hl = 1 AND $raw{rkv} < d.sp_lkv
UNION ALL
SELECT :table, d.sp_k, '*', NULL, d.sp_tv, d.sp_c, $raw{newest_r}, :rule,
       CASE WHEN d.sp_ins = 1 THEN 'remote' ELSE 'local' END
  FROM ${d} AS d
 WHERE d.sp_hl = 0 AND d.sp_tkv >= $raw{rkv}
UNION ALL
$raw{remade_conflicts}
---
-- 2. A change that loses to the delete of its incarnation still counts against the row
--    deleted, as it does at its own site, where the row stays: the groups it takes are
--    merged into the tombstone's deleted row, which a later change beating the delete
--    makes again.
UPDATE ${tombstones} AS tb SET deleted_row = $raw{merged_row} FROM ${d} AS d
 WHERE tb.table_name = :table AND tb.key = d.sp_k AND tb.kv = d.sp_tkv
   AND d.sp_ins = 0 AND $raw{remade}
---
-- 3. Rows that exist: the groups taken (a newer incarnation takes all of them).
UPDATE $raw{target} AS t SET $raw{sets} FROM ${d} AS d WHERE $raw{match} AND d.sp_upd = 1
---
-- 4. Keys without a row, in position order; a deleted row made again keeps the groups
--    the change does not take.
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{d_values} FROM ${d} AS d WHERE d.sp_ins = 1 ORDER BY d.sp_rk
---
-- 5. An older incarnation replaced by a newer one: the delete that ended it did not come
--    here (a round's net change of the key at a site that deleted and inserted it again
--    is the insert). Its tombstone, with the delete's version unknown here (''), so that
--    this site holds it like every other and purge can take it away; the delete's own
--    version replaces '' when it comes.
--    Not passed on from here (ended_here): what this site passes on is the new incarnation.
INSERT INTO ${tombstones} (table_name, key, kv, version, ended_here)
SELECT :table, d.sp_k, d.sp_lkv, '', '' FROM ${d} AS d WHERE d.sp_hl = 1 AND $raw{rkv} > d.sp_lkv
ON CONFLICT (table_name, key, kv) DO NOTHING
