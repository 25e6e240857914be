-- One repl_key range of a window's row records, as the operations they mean (a round's
-- direct path, streamed by COPY into the target's ``{p}staging``): INSERT and UPDATE upsert
-- the key of content (sub 1), DELETE deletes the key of oldcontent (sub 0), and an UPDATE
-- that moved its key also deletes the old key just before (sub -1). The target nets them
-- (the last by repl_key, sub per key wins, as core/netting.py says). No ORDER BY: the
-- target sorts. Every column is cast to the staging's type (the stream is binary into a
-- PostgreSQL target, text into another's bulk load). OFFSET 0
-- keeps the range's read a subquery of its own (its filter still reaches the queue's
-- index): pulled up, each use of sp_key and sp_old_key below would extract the key from
-- the JSON again. A record becomes its one or two operations by unnest() of a constant
-- array (the subs), not by a join to a VALUES list, whose expressions PostgreSQL builds
-- anew for every record.
COPY (
SELECT $lit{application}::text, $lit{group}::text, $lit{round}::text, $raw{tbl}::integer,
       (CASE WHEN m.sub = 1 THEN 'U' ELSE 'D' END)::text,
       (CASE WHEN m.sub = 1 THEN m.content ELSE m.oldcontent END)::text,
       m.repl_key::bigint, m.dbid::text,
       (CASE WHEN m.sub = 1 THEN m.sp_key ELSE m.sp_old_key END)::text,
       m.sub::smallint
  FROM (SELECT r.*,
               unnest(CASE WHEN r.db_action = 'DELETE' THEN '{0}'::smallint[]
                           WHEN r.db_action = 'UPDATE' AND r.sp_old_key <> r.sp_key
                           THEN '{-1,1}'::smallint[]
                           ELSE '{1}'::smallint[] END) AS sub
          FROM (SELECT * FROM ($raw{query}) q
                 WHERE q.repl_key >= $raw{lo} AND q.repl_key < $raw{hi} OFFSET 0) r) m
) TO STDOUT $raw{format}
