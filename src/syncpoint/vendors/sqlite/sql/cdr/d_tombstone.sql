-- For keys without a local row: the newest tombstone of the key (its key version, the
-- delete's version, the row deleted).
UPDATE ${d} AS d SET sp_tkv = (SELECT max(tb.kv) FROM ${tombstones} AS tb
                                WHERE tb.table_name = :table AND tb.key = d.sp_k)
 WHERE d.sp_hl = 0
---
UPDATE ${d} AS d SET sp_tv = (SELECT tb.version FROM ${tombstones} AS tb
                               WHERE tb.table_name = :table AND tb.key = d.sp_k
                                 AND tb.kv = d.sp_tkv)
 WHERE d.sp_tkv IS NOT NULL
---
-- The tombstone's deleted row, when it kept one (its values are converted in Python).
UPDATE ${d} AS d SET sp_tr = (SELECT tb.deleted_row FROM ${tombstones} AS tb
                               WHERE tb.table_name = :table AND tb.key = d.sp_k
                                 AND tb.kv = d.sp_tkv)
 WHERE d.sp_tkv IS NOT NULL
