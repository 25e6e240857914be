-- A window's row records as its net operations (a round's direct path into a target that
-- nets slowly: MariaDB's sort of the staged operations took longer than reading them):
-- ops_out.sql's operations of the whole window, of which only the last by (repl_key, sub)
-- of each key crosses (core/netting.py's rule, the keys compared byte by byte as the
-- target's ops_net.sql compares them); a window's operations must all be in one statement
-- for that, so this is one task per window. The last column is the number of the window's
-- change records (an operation of sub >= 0 each), the same on every row: the target's
-- count of staged operations no longer says it. Keyless operations share one NULL key: one
-- of them crosses, and the target's check of keys refuses the round as before.
COPY (
SELECT DISTINCT ON (o.key COLLATE "C")
       $lit{application}::text, $lit{group}::text, $lit{round}::text, $raw{tbl}::integer,
       o.action, o.content, o.repl_key::bigint, o.dbid::text, o.key, o.sub::smallint,
       o.records
  FROM (SELECT (CASE WHEN m.sub = 1 THEN 'U' ELSE 'D' END)::text AS action,
               (CASE WHEN m.sub = 1 THEN m.content ELSE m.oldcontent END)::text AS content,
               m.repl_key, m.dbid,
               (CASE WHEN m.sub = 1 THEN m.sp_key ELSE m.sp_old_key END)::text AS key,
               m.sub, count(*) FILTER (WHERE m.sub >= 0) OVER () AS records
          FROM (SELECT r.*,
                       unnest(CASE WHEN r.db_action = 'DELETE' THEN '{0}'::smallint[]
                                   WHEN r.db_action = 'UPDATE' AND r.sp_old_key <> r.sp_key
                                   THEN '{-1,1}'::smallint[]
                                   ELSE '{1}'::smallint[] END) AS sub
                  FROM (SELECT * FROM ($raw{query}) q
                         WHERE q.repl_key >= $raw{lo} AND q.repl_key < $raw{hi} OFFSET 0) r
               ) m) o
 ORDER BY o.key COLLATE "C", o.repl_key DESC, o.sub DESC
) TO STDOUT
