-- A round's staged operations netted in place: per window and key, every operation but the
-- last by (repl_key, sub) goes (core/netting.py's rule), so the rows left are the round's net
-- rows, each with the dbid of its record as origin. Keys are the source's JSON text,
-- compared byte by byte (COLLATE "C": no locale rules in the sort, and equal only when
-- equal). The sort carries each operation's place (ctid), not its content.
DELETE FROM ${staging} s
 WHERE s.ctid = ANY (ARRAY(
       SELECT o.ctid
         FROM (SELECT w.ctid, row_number() OVER (
                      PARTITION BY w.tbl, w.key COLLATE "C"
                      ORDER BY w.repl_key DESC, w.sub DESC) AS n
                 FROM ${staging} w
                WHERE w.round_id = %s) o
        WHERE o.n > 1))
