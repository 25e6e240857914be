-- A round's operations netted into its staged rows: per window and key, the last by
-- (repl_key, sub) wins (core/netting.py's rule), with the dbid of its record as origin.
-- Keys are the source's JSON text, compared byte by byte (COLLATE "C": no locale rules in
-- the sort, and equal only when equal). The sort carries each operation's place (ctid), not
-- its content: the winners are then fetched by a TID scan.
INSERT INTO ${staging} (application_name, sync_name, round_id, tbl, action, content, repl_key,
                        origin)
SELECT o.application_name, o.sync_name, o.round_id, o.tbl, o.action, o.content, o.repl_key,
       o.origin
  FROM ${ops} o
 WHERE o.ctid = ANY (ARRAY(
       SELECT DISTINCT ON (w.tbl, w.key COLLATE "C") w.ctid
         FROM ${ops} w
        WHERE w.round_id = %s
        ORDER BY w.tbl, w.key COLLATE "C", w.repl_key DESC, w.sub DESC))
