-- For keys without a local row: the newest tombstone of the key (its key version, the
-- delete's version, the row deleted).
UPDATE ${d} AS d SET sp_tkv = (SELECT max(tb.kv) FROM ${tombstones} tb
                                WHERE tb.table_name = %(table)s AND tb.key = d.sp_k)
 WHERE d.sp_hl = 0
---
UPDATE ${d} AS d SET sp_tv = (SELECT tb.version FROM ${tombstones} tb
                               WHERE tb.table_name = %(table)s AND tb.key = d.sp_k
                                 AND tb.kv = d.sp_tkv)
 WHERE d.sp_tkv IS NOT NULL
---
-- The tombstone's deleted row, when it kept one: its values, converted (sp_o<i>).
UPDATE ${d} AS d SET sp_tr = (SELECT tb.deleted_row FROM ${tombstones} tb
                               WHERE tb.table_name = %(table)s AND tb.key = d.sp_k
                                 AND tb.kv = d.sp_tkv)
 WHERE d.sp_tkv IS NOT NULL
---
UPDATE ${d} AS d SET ($raw{restore_to}) = (
    SELECT $raw{restore_from} FROM json_populate_record(NULL::$raw{target}, d.sp_tr::json) r)
 WHERE d.sp_tr IS NOT NULL
