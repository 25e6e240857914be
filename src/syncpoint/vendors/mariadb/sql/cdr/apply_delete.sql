-- 1. The conflicts: the local row is a newer incarnation, or it changed since the version
--    the delete was made from (not a row put back: this site deleted it already, and two
--    deletes of one incarnation are no conflict); per group, of a delete that loses or
--    wins, the groups its window changed that the row changed too (taken or not, into the
--    row it loses to or the row it deletes).
INSERT INTO ${conflicts} (table_name, `key`, column_group, local_row, local_version,
                          remote_row, remote_version, resolution, winner)
SELECT %(table)s, d.sp_k, '*', $raw{local_row}, $raw{newest_l}, d.sp_c, d.sp_dv, %(rule)s,
       CASE WHEN d.sp_del = 1 THEN 'remote' ELSE 'local' END
  FROM ${d} d JOIN $raw{target} t ON $raw{match}
 WHERE NOT $raw{restored}
   AND (d.sp_lkv > $raw{rkv} OR (d.sp_lkv = $raw{rkv} AND $raw{changed}))
UNION ALL
$raw{group_conflicts}
---
-- 2. The groups taken, the same way as an update's: of a row a delete lost to, and of
--    a row a delete takes away, whose delete's window changed them before it deleted
--    (captured here before the delete, so a site after this one in a ring gets them
--    with the delete, as this one did; and kept in the tombstone's deleted row).
UPDATE $raw{target} t JOIN ${d} d ON $raw{match} SET $raw{sets} WHERE d.sp_upd = 1
---
-- 3. Tombstones, one of every incoming delete, also of one the row here wins against or
--    of an incarnation older than the row here: every site then holds it, and purge can
--    take it away. Two deletes of one incarnation keep the version the rule prefers, so
--    every site ends with the same one (a tombstone whose delete was not seen here, '',
--    takes the delete's). The row deleted here, when it is of the delete's incarnation.
--    ended_here: the delete's version where this site does not pass it on (the row here
--    stays, or a newer incarnation's tombstone is here: see forward_delete.sql); once any
--    delete of the incarnation was passed on from here, it stays NULL.
--    deleted_at: now, also where the tombstone was here already (a delete of a row
--    made again after an earlier delete of the incarnation): purge bounds by it what this
--    site captured before the delete, the changes of the row made again too.
INSERT INTO ${tombstones} (table_name, `key`, kv, version, deleted_at, deleted_row, ended_here)
SELECT %(table)s, d.sp_k, $raw{rkv}, COALESCE(d.sp_dv, ''), UTC_TIMESTAMP(6),
       (SELECT $raw{deleted_row} FROM $raw{target} t
         WHERE $raw{match} AND d.sp_del = 1 AND d.sp_lkv = $raw{rkv}),
       CASE WHEN d.sp_del = 1 THEN NULL
            WHEN d.sp_hl = 1 OR EXISTS (SELECT 1 FROM ${tombstones} nb
                                         WHERE nb.table_name = %(table)s AND nb.`key` = d.sp_k
                                           AND nb.kv > $raw{rkv})
            THEN COALESCE(d.sp_dv, '') END
  FROM ${d} d WHERE d.sp_tomb = 1
ON DUPLICATE KEY UPDATE
   ended_here = IF(ended_here IS NULL, NULL, VALUES(ended_here)),
   version = IF(version = '' OR VALUES(version) $raw{op} version, VALUES(version), version),
   deleted_row = COALESCE(VALUES(deleted_row), deleted_row),
   deleted_at = VALUES(deleted_at)
---
-- 4. The deletes that take effect.
DELETE t FROM $raw{target} t JOIN ${d} d ON $raw{match} WHERE d.sp_del = 1
---
-- 5. A delete of a newer incarnation took away a row of an older one here: the delete that
--    ended the older one did not come here (see apply_upsert.sql, 5). Its tombstone, with
--    the delete's version unknown here (''), so that this site holds it like every other.
--    Not passed on from here (ended_here: what this site passes on is the newer one's).
INSERT INTO ${tombstones} (table_name, `key`, kv, version, deleted_at, ended_here)
SELECT %(table)s, d.sp_k, d.sp_lkv, '', UTC_TIMESTAMP(6), ''
  FROM ${d} d WHERE d.sp_hl = 1 AND $raw{rkv} > d.sp_lkv
ON DUPLICATE KEY UPDATE kv = kv
