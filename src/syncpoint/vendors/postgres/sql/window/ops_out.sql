-- One repl_key range of a window's row records, as the operations they mean (a round's
-- direct path, streamed by COPY into the target's ``{p}staging``): INSERT and UPDATE upsert
-- the key of content (sub 1), DELETE deletes the key of oldcontent (sub 0), and an UPDATE
-- that moved its key also deletes the old key just before (sub -1). The target nets them
-- (the last by repl_key, sub per key wins, as core/netting.py says). No ORDER BY: the
-- target sorts. Every column is cast to the staging's type (the stream is binary into a
-- PostgreSQL target, text into another's bulk load). OFFSET 0
-- keeps the range's read a subquery of its own (its filter still reaches the queue's
-- index): pulled up, each use of sp_key and sp_old_key below would extract the key from
-- the JSON again.
COPY (
SELECT $lit{application}::text, $lit{group}::text, $lit{round}::text, $raw{tbl}::integer,
       o.action::text, o.content::text, r.repl_key::bigint, r.dbid::text, o.key::text,
       o.sub::smallint
  FROM (SELECT * FROM ($raw{query}) q
         WHERE q.repl_key >= $raw{lo} AND q.repl_key < $raw{hi} OFFSET 0) r
 CROSS JOIN LATERAL (VALUES
       (CASE WHEN r.db_action = 'DELETE' THEN r.sp_old_key ELSE r.sp_key END,
        CASE WHEN r.db_action = 'DELETE' THEN 0 ELSE 1 END,
        CASE WHEN r.db_action = 'DELETE' THEN 'D' ELSE 'U' END,
        CASE WHEN r.db_action = 'DELETE' THEN r.oldcontent ELSE r.content END),
       (r.sp_old_key, -1, 'D', r.oldcontent)) AS o (key, sub, action, content)
 WHERE (o.sub >= 0 OR (r.db_action = 'UPDATE' AND r.sp_old_key <> r.sp_key))
) TO STDOUT $raw{format}
