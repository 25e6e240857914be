-- One repl_key range of a window's row records as typed operations (a round's direct path
-- into the window's typed staging, integrate/typed_create.sql): the same operations as
-- ops_out.sql, each with the values of the target's columns taken out of its record's JSON
-- as text that the target's COPY reads into the columns' types (a PostgreSQL source's,
-- streamed by ops_out_typed.sql), or that the target's INSERT casts to them (another
-- vendor's records, loaded into a temporary table at the target by the task:
-- integrate/typed_records_insert.sql). A delete carries its key columns only.
-- Each record's content and oldcontent are parsed once (j, kept a subquery of its own by
-- OFFSET 0: pulled up, every use below would parse the text again), and its keys are the
-- text of the key values in that parse ($raw{new_key}, $raw{old_key}: equal exactly when the
-- values are, as the source writes one value the same way every time). A record becomes its
-- one or two operations by a set-returning function of each row (sub: -1 the old key of an
-- UPDATE that moved its key, 0 a DELETE, 1 an upsert), not by a join to a VALUES list, which
-- PostgreSQL builds anew for every record.
SELECT o.repl_key::bigint, o.sub::smallint, o.action::text, o.key::text $raw{values}
  FROM (SELECT m.repl_key, m.sub,
               CASE WHEN m.sub = 1 THEN 'U' ELSE 'D' END AS action,
               CASE WHEN m.sub = 1 THEN m.new_key ELSE m.old_key END AS key,
               CASE WHEN m.sub = 1 THEN m.new ELSE m.old END AS c
          FROM (SELECT k.*,
                       unnest(CASE WHEN k.db_action = 'DELETE' THEN '{0}'::smallint[]
                                   WHEN k.db_action = 'UPDATE' AND k.old_key <> k.new_key
                                   THEN '{-1,1}'::smallint[]
                                   ELSE '{1}'::smallint[] END) AS sub
                  FROM (SELECT j.*, $raw{new_key} AS new_key, $raw{old_key} AS old_key
                          FROM (SELECT r.repl_key, r.db_action,
                                       CASE WHEN r.db_action <> 'DELETE'
                                            THEN r.content::jsonb END AS new,
                                       CASE WHEN r.db_action <> 'INSERT'
                                            THEN r.oldcontent::jsonb END AS old
                                  FROM ($raw{query}) r
                                 WHERE r.repl_key >= $raw{lo} AND r.repl_key < $raw{hi}
                                OFFSET 0) j
                        OFFSET 0) k) m) o
