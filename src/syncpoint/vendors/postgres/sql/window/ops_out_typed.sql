-- One repl_key range of a window's row records as typed operations (a round's direct path
-- into the window's typed staging, integrate/typed_create.sql): the same operations as
-- ops_out.sql, each with the values of the target's columns taken out of its record's JSON
-- (parsed once, where an operation uses it, in this task's source backend) as text that the
-- target's COPY reads into the columns' types. A delete carries its key columns only.
COPY (
SELECT r.repl_key::bigint, o.sub::smallint, o.action::text, o.key::text $raw{values}
  FROM (SELECT * FROM ($raw{query}) q
         WHERE q.repl_key >= $raw{lo} AND q.repl_key < $raw{hi} OFFSET 0) r
 CROSS JOIN LATERAL (VALUES
       (CASE WHEN r.db_action = 'DELETE' THEN r.sp_old_key ELSE r.sp_key END,
        CASE WHEN r.db_action = 'DELETE' THEN 0 ELSE 1 END,
        CASE WHEN r.db_action = 'DELETE' THEN 'D' ELSE 'U' END,
        CASE WHEN r.db_action = 'DELETE' THEN r.oldcontent::jsonb ELSE r.content::jsonb END),
       (r.sp_old_key, -1, 'D',
        CASE WHEN r.db_action = 'UPDATE' AND r.sp_old_key <> r.sp_key
             THEN r.oldcontent::jsonb END)) AS o (key, sub, action, c)
 WHERE (o.sub >= 0 OR (r.db_action = 'UPDATE' AND r.sp_old_key <> r.sp_key))
) TO STDOUT
