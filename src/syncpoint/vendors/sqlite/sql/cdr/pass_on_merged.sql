-- A change that lost here to the delete of its incarnation, whose groups were merged into
-- the tombstone's deleted row (apply_upsert.sql, 2), passed on all the same: the deleted row
-- was put back (undelete.sql); it takes those groups and is deleted again, both captured,
-- marked with the change's origin. A site after this one whose row won against the delete
-- has no other way to the change (CdrSite.pass_on_merged).
UPDATE $raw{target} AS t SET $raw{sets} FROM ${d} AS d WHERE $raw{match} AND $raw{restored}
---
DELETE FROM $raw{target} AS t
 WHERE EXISTS (SELECT 1 FROM ${d} AS d WHERE $raw{match} AND $raw{restored})
---
-- The tombstone's time now, as where a later delete writes it again: purge bounds by it what
-- this site captured before it, and the change passed on just now is such.
UPDATE ${tombstones} AS tb SET deleted_at = strftime('%Y-%m-%d %H:%M:%f', 'now') FROM ${d} AS d
 WHERE tb.table_name = :table AND tb.key = d.sp_k AND tb.kv = d.sp_tkv AND $raw{restored}
