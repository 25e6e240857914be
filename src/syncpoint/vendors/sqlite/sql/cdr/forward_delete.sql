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
-- The rows are final content already (no fix).
INSERT INTO $raw{items} (context, trans_key, dbid, tablename, db_catalog, db_schema, guid,
                         db_action, content, oldcontent, version, captured_at, fix)
SELECT NULL, sc.context + 1, coalesce((SELECT o.dbid FROM $raw{origin} AS o LIMIT 1), sc.location),
       w.tablename, w.catalogname, 'main', lower(hex(randomblob(16))), 'UPDATE', d.sp_c, $raw{made_from},
       w.version, strftime('%Y-%m-%d %H:%M:%f', 'now') || '000', NULL
  FROM ${d} AS d, $raw{service_context} AS sc, $raw{tables} AS w
 WHERE w.tablename = $lit{tablename}
   AND (w.actions IS NULL OR instr(w.actions, 'D') > 0)
   AND d.sp_hl = 0
   AND NOT EXISTS (SELECT 1 FROM ${tombstones} AS tb
                    WHERE tb.table_name = :table AND tb.key = d.sp_k AND tb.kv > $raw{rkv})
 ORDER BY d.sp_rk
---
INSERT INTO $raw{items} (context, trans_key, dbid, tablename, db_catalog, db_schema, guid,
                         db_action, content, oldcontent, version, captured_at, fix)
SELECT NULL, sc.context + 1, coalesce((SELECT o.dbid FROM $raw{origin} AS o LIMIT 1), sc.location),
       w.tablename, w.catalogname, 'main', lower(hex(randomblob(16))), 'DELETE', NULL, d.sp_c,
       w.version, strftime('%Y-%m-%d %H:%M:%f', 'now') || '000', NULL
  FROM ${d} AS d, $raw{service_context} AS sc, $raw{tables} AS w
 WHERE w.tablename = $lit{tablename}
   AND (w.actions IS NULL OR instr(w.actions, 'D') > 0)
   AND d.sp_hl = 0
   AND NOT EXISTS (SELECT 1 FROM ${tombstones} AS tb
                    WHERE tb.table_name = :table AND tb.key = d.sp_k AND tb.kv > $raw{rkv})
 ORDER BY d.sp_rk
