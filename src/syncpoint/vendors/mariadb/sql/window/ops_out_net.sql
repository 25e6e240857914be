-- A window's row records (a ``read_query``) as its net operations, for a round's direct path
-- into a MariaDB target (round_direct.py: LOAD DATA reads the lines into ``{p}staging``,
-- sql/integrate/ops_in.sql's columns then the window's count). The operations as
-- round_direct.operations splits them (an insert or update upserts its key, sub 1; a
-- delete deletes its old key, sub 0; an update that moved its key also deletes the old
-- one, sub -1), of which only the last by (repl_key, sub) of each key crosses
-- (core/netting.py's rule; keys compared byte for byte, by their SHA-256 as the target's
-- ops_net.sql compares them: a sort of long text compares a prefix only). The target's own
-- netting sorted every operation after loading it, which took longer than the copy. The
-- window's operations must all be in one statement for that: one task per window. The last
-- value of each line is the window's count of change records (an operation of sub >= 0
-- each), the same on every line: the target's count of staged operations no longer says
-- it. Keyless operations share one NULL key: one crosses, and the target's check of keys
-- refuses the round as before. A record becomes its operations by a join to the three
-- subs. Each line is ``$raw{head}`` (the round's columns) then action, row, repl_key,
-- origin, key, sub, records, text escaped as LOAD DATA (and COPY) reads it (backslash,
-- newline, carriage return, tab; NULL as \N) whatever the sql_mode: the characters are
-- written by their codes.
SELECT CAST(CONCAT(
  $raw{head},
  IF(sp_r.sub = 1, 'U', 'D'), CHAR(9), $raw{esc_content}, CHAR(9), sp_r.repl_key, CHAR(9),
  $raw{esc_dbid}, CHAR(9), $raw{esc_key}, CHAR(9), sp_r.sub, CHAR(9), sp_r.records,
  CHAR(10)) AS BINARY) AS line
FROM (
  SELECT sp_o.*,
         ROW_NUMBER() OVER (PARTITION BY SHA2(sp_o.sp_key, 256)
                            ORDER BY sp_o.repl_key DESC, sp_o.sub DESC) AS sp_n,
         SUM(sp_o.sub >= 0) OVER () AS records
    FROM (
      SELECT sp_q.repl_key, sp_s.sub, sp_q.dbid,
             IF(sp_s.sub = 1, sp_q.content, sp_q.oldcontent) AS content,
             IF(sp_s.sub = 1, sp_q.sp_key, sp_q.sp_old_key) AS sp_key
        FROM (SELECT * FROM ($raw{query}) sp_w
               WHERE sp_w.repl_key >= $raw{lo} AND sp_w.repl_key < $raw{hi}) sp_q
        JOIN (SELECT -1 AS sub UNION ALL SELECT 0 UNION ALL SELECT 1) sp_s
          ON sp_s.sub = IF(sp_q.db_action = 'DELETE', 0, 1)
          OR (sp_s.sub = -1 AND sp_q.db_action = 'UPDATE'
              AND sp_q.sp_key IS NOT NULL AND sp_q.sp_old_key IS NOT NULL
              AND CAST(sp_q.sp_key AS BINARY) <> CAST(sp_q.sp_old_key AS BINARY))
    ) sp_o
) sp_r
WHERE sp_r.sp_n = 1
