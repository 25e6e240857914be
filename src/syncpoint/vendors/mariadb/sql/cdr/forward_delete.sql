-- A delete that takes effect where no row of its incarnation is left (its insert and delete
-- came in one round here, or the row was deleted here already): deleting nothing fires no
-- capture trigger, so it is recorded in capture's queue here as the triggers record a
-- delete whose window changed the row first, in the apply's transaction, marked with the
-- origin set for the apply: an UPDATE to the row as it came from the same row with the
-- version of each group the delete's window made as '*' (so the read says the window made
-- those groups, and only those), then the row's DELETE. A ring passes it on like any other
-- (the sites after this one may still hold a row of that incarnation, and keep no tombstone
-- without it; one whose row wins against the delete takes those groups from it, as the
-- deleting site does when its row is made again). Not where a tombstone of a newer
-- incarnation is held here: the key's records here end with that one's delete, which the
-- reader's netting must keep.
INSERT INTO $raw{items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                         content, oldcontent, version, captured_at)
SELECT $raw{trans_key}(), COALESCE($raw{origin}, $lit{location}), w.tablename, w.schemaname,
       w.schemaname, UUID(), 'UPDATE', d.sp_c, $raw{made_from}, COALESCE(w.trigger_version, w.version),
       UTC_TIMESTAMP(6)
  FROM ${d} d JOIN $raw{tables} w
    ON w.schemaname = $raw{schema} AND w.tablename = $lit{tablename}
 WHERE (w.actions IS NULL OR LOCATE('D', w.actions) > 0)
   AND d.sp_hl = 0
   AND NOT EXISTS (SELECT 1 FROM ${tombstones} tb
                    WHERE tb.table_name = %(table)s AND tb.`key` = d.sp_k
                      AND tb.kv > $raw{rkv})
 ORDER BY d.sp_rk
---
INSERT INTO $raw{items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                         content, oldcontent, version, captured_at)
SELECT $raw{trans_key}(), COALESCE($raw{origin}, $lit{location}), w.tablename, w.schemaname,
       w.schemaname, UUID(), 'DELETE', NULL, d.sp_c, COALESCE(w.trigger_version, w.version),
       UTC_TIMESTAMP(6)
  FROM ${d} d JOIN $raw{tables} w
    ON w.schemaname = $raw{schema} AND w.tablename = $lit{tablename}
 WHERE (w.actions IS NULL OR LOCATE('D', w.actions) > 0)
   AND d.sp_hl = 0
   AND NOT EXISTS (SELECT 1 FROM ${tombstones} tb
                    WHERE tb.table_name = %(table)s AND tb.`key` = d.sp_k
                      AND tb.kv > $raw{rkv})
 ORDER BY d.sp_rk
