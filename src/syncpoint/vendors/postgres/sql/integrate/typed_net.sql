-- A window's typed operations netted in place, by the rule of ops_net.sql: per key (the
-- source's JSON text, compared byte by byte), every operation but the last by (repl_key,
-- sub) goes.
DELETE FROM $raw{staging} s
 WHERE s.ctid = ANY (ARRAY(
       SELECT o.ctid
         FROM (SELECT w.ctid, row_number() OVER (
                      PARTITION BY w.sp_key COLLATE "C"
                      ORDER BY w.sp_repl_key DESC, w.sp_sub DESC) AS n
                 FROM $raw{staging} w) o
        WHERE o.n > 1))
