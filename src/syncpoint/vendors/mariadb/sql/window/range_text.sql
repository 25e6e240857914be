-- One repl_key range of a window's row records (a ``read_query``) as the lines another
-- vendor's COPY text format takes (PostgreSQL's round_direct.RowsCopy), one value per record:
-- the operations its record means, split as round_direct.operations splits them (an insert
-- or update upserts its key, sub 1; a delete deletes its old key, sub 0; an update that
-- moved its key also deletes the old one, sub -1), each line ``$raw{head}`` (the round's
-- columns) then action, row, repl_key, origin, key, sub. Made here so that the task passes
-- bytes on instead of parsing and writing every value in Python. Text escaped as COPY reads
-- it (backslash, newline, carriage return, tab; NULL as \N), whatever the sql_mode: the
-- characters are written by their codes. Keys compared byte for byte, as Python compares
-- them.
SELECT CAST(CONCAT(
  $raw{head},
  IF(sp_t.db_action = 'DELETE',
     CONCAT('D', CHAR(9), sp_t.old_t, CHAR(9), sp_t.repl_key, CHAR(9), sp_t.dbid_t, CHAR(9),
            sp_t.old_key_t, CHAR(9), '0'),
     CONCAT('U', CHAR(9), sp_t.content_t, CHAR(9), sp_t.repl_key, CHAR(9), sp_t.dbid_t,
            CHAR(9), sp_t.key_t, CHAR(9), '1',
            IF(sp_t.db_action = 'UPDATE' AND sp_t.moved,
               CONCAT(CHAR(10), $raw{head}, 'D', CHAR(9), sp_t.old_t, CHAR(9), sp_t.repl_key,
                      CHAR(9), sp_t.dbid_t, CHAR(9), sp_t.old_key_t, CHAR(9), '-1'),
               ''))),
  CHAR(10)) AS BINARY) AS line
FROM (
  SELECT sp_r.repl_key, sp_r.db_action,
         $raw{esc_content} AS content_t, $raw{esc_old} AS old_t, $raw{esc_dbid} AS dbid_t,
         $raw{esc_key} AS key_t, $raw{esc_old_key} AS old_key_t,
         (sp_r.sp_key IS NOT NULL AND sp_r.sp_old_key IS NOT NULL
          AND CAST(sp_r.sp_key AS BINARY) <> CAST(sp_r.sp_old_key AS BINARY)) AS moved
    FROM ($raw{query}) sp_r WHERE sp_r.repl_key >= $raw{lo} AND sp_r.repl_key < $raw{hi}
) sp_t
