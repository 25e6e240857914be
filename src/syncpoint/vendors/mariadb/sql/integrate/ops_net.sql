-- A round's staged operations netted in place: per window and key, every operation but the
-- last by (repl_key, sub) goes (core/netting.py's rule). An operation is one (round,
-- window, repl_key, sub). Keys are the source's JSON text, compared by their SHA-256 (a
-- sort of long text would compare a prefix only).
DELETE s FROM ${staging} s
  JOIN (SELECT o.round_id, o.tbl, o.repl_key, o.sp_sub
          FROM (SELECT w.round_id, w.tbl, w.repl_key, w.sp_sub,
                       ROW_NUMBER() OVER (PARTITION BY w.tbl, SHA2(w.sp_key, 256)
                                          ORDER BY w.repl_key DESC, w.sp_sub DESC) AS n
                  FROM ${staging} w WHERE w.round_id = %s) o
         WHERE o.n > 1) d
    ON s.round_id = d.round_id AND s.tbl = d.tbl AND s.repl_key = d.repl_key
   AND s.sp_sub = d.sp_sub
