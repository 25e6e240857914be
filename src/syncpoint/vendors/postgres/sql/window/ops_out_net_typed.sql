-- A window's net operations as typed rows (a round's direct path into a MariaDB target's
-- typed staging, mariadb/round_direct.py): ops_out_net.sql's operations, the last of each
-- key only, and then of each of them the values of the target's columns out of its
-- record's JSON, parsed once (c, kept a subquery of its own by OFFSET 0) and only for the
-- net rows, as text that LOAD DATA reads into the staging's columns (a delete carries its
-- key columns only). Columns: repl_key, sub, action, keyless (1: a record without its key
-- columns, which the target's check refuses), the change records of the row's key (an
-- operation of sub >= 0 each; the target sums them into the window's count), then
-- $raw{values}. The records of a key are counted over its rows as the netting's own sort
-- delivers them: no pass over the whole window has to hold it (count(*) OVER () kept every
-- operation with its JSON in a tuplestore, on disk for a W1).
COPY (
SELECT o.repl_key::bigint, o.sub::smallint, o.action, (o.key IS NULL)::integer, o.records
       $raw{values}
  FROM (SELECT d.*, d.content::jsonb AS c
          FROM (SELECT DISTINCT ON (n.key COLLATE "C")
                       n.action, n.content, n.repl_key, n.key, n.sub,
                       count(*) FILTER (WHERE n.sub >= 0) OVER (
                           PARTITION BY n.key COLLATE "C"
                           ORDER BY n.repl_key DESC, n.sub DESC
                           ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
                       ) AS records
                  FROM (SELECT (CASE WHEN m.sub = 1 THEN 'U' ELSE 'D' END)::text AS action,
                               (CASE WHEN m.sub = 1 THEN m.content ELSE m.oldcontent END)::text
                                 AS content,
                               m.repl_key,
                               (CASE WHEN m.sub = 1 THEN m.sp_key ELSE m.sp_old_key END)::text
                                 AS key,
                               m.sub
                          FROM (SELECT r.*,
                                       unnest(CASE WHEN r.db_action = 'DELETE'
                                                   THEN '{0}'::smallint[]
                                                   WHEN r.db_action = 'UPDATE'
                                                        AND r.sp_old_key <> r.sp_key
                                                   THEN '{-1,1}'::smallint[]
                                                   ELSE '{1}'::smallint[] END) AS sub
                                  FROM (SELECT * FROM ($raw{query}) q
                                         WHERE q.repl_key >= $raw{lo} AND q.repl_key < $raw{hi}
                                        OFFSET 0) r
                               ) m) n
                 ORDER BY n.key COLLATE "C", n.repl_key DESC, n.sub DESC) d
        OFFSET 0) o
) TO STDOUT
