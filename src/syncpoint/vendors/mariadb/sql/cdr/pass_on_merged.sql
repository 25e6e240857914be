-- A change that lost here to the delete of its incarnation, whose groups were merged into
-- the tombstone's deleted row (apply_upsert.sql, 2), passed on all the same: the deleted row
-- was put back (undelete.sql); it takes those groups and is deleted again, both captured,
-- marked with the change's origin. A site after this one whose row won against the delete
-- has no other way to the change (CdrSite.pass_on_merged).
UPDATE $raw{target} t JOIN ${d} d ON $raw{match} SET $raw{sets} WHERE $raw{restored}
---
DELETE t FROM $raw{target} t JOIN ${d} d ON $raw{match} WHERE $raw{restored}
---
-- The tombstone's time now, as where a later delete writes it again: purge bounds by it what
-- this site captured before it, and the change passed on just now is such.
UPDATE ${tombstones} tb JOIN ${d} d ON tb.`key` = d.sp_k AND tb.kv = d.sp_tkv
   SET tb.deleted_at = UTC_TIMESTAMP(6)
 WHERE tb.table_name = %(table)s AND $raw{restored}
