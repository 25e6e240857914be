-- A round's operations netted into its staged rows: per window and key, the last by
-- (repl_key, sub) wins (core/netting.py's rule), with the dbid of its record as origin.
-- Keys are the source's JSON text, compared byte by byte (COLLATE "C": no locale rules in
-- the sort, and equal only when equal).
INSERT INTO ${staging} (application_name, sync_name, round_id, tbl, action, content, repl_key,
                        origin)
SELECT DISTINCT ON (o.tbl, o.key COLLATE "C")
       o.application_name, o.sync_name, o.round_id, o.tbl, o.action, o.content, o.repl_key,
       o.origin
  FROM ${ops} o
 WHERE o.round_id = %s
 ORDER BY o.tbl, o.key COLLATE "C", o.repl_key DESC, o.sub DESC
