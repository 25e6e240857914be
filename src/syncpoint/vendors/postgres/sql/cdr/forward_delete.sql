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
INSERT INTO $raw{items} (repl_key, guid, trans_key, dbid, tablename, db_catalog, db_schema,
                         db_action, content, oldcontent, version, captured_at)
SELECT q.sp_k, q.stream_id || ':' || q.sp_k::text, pg_current_xact_id(),
       coalesce(nullif(current_setting($lit{origin_guc}, true), ''), q.location),
       q.tablename, current_database(), q.schemaname, 'UPDATE', q.sp_c, q.sp_o, q.version,
       clock_timestamp()
  FROM (SELECT nextval($lit{seq}::regclass) AS sp_k, d.sp_c, $raw{made_from} AS sp_o,
               s.stream_id, s.location,
               w.tablename, w.schemaname, w.version
          FROM ${d} d, $raw{service} s, $raw{tables} w
         WHERE w.schemaname = $lit{schema} AND w.tablename = $lit{tablename}
           AND strpos(coalesce(w.actions, 'IUD'), 'D') > 0
           AND d.sp_hl = 0
           AND NOT EXISTS (SELECT 1 FROM ${tombstones} tb
                            WHERE tb.table_name = %(table)s AND tb.key = d.sp_k
                              AND tb.kv > $raw{rkv})
        OFFSET 0) q
---
INSERT INTO $raw{items} (repl_key, guid, trans_key, dbid, tablename, db_catalog, db_schema,
                         db_action, content, oldcontent, version, captured_at)
SELECT q.sp_k, q.stream_id || ':' || q.sp_k::text, pg_current_xact_id(),
       coalesce(nullif(current_setting($lit{origin_guc}, true), ''), q.location),
       q.tablename, current_database(), q.schemaname, 'DELETE', NULL, q.sp_c, q.version,
       clock_timestamp()
  FROM (SELECT nextval($lit{seq}::regclass) AS sp_k, d.sp_c, s.stream_id, s.location,
               w.tablename, w.schemaname, w.version
          FROM ${d} d, $raw{service} s, $raw{tables} w
         WHERE w.schemaname = $lit{schema} AND w.tablename = $lit{tablename}
           AND strpos(coalesce(w.actions, 'IUD'), 'D') > 0
           AND d.sp_hl = 0
           AND NOT EXISTS (SELECT 1 FROM ${tombstones} tb
                            WHERE tb.table_name = %(table)s AND tb.key = d.sp_k
                              AND tb.kv > $raw{rkv})
        OFFSET 0) q
