-- One repl_key range of a window's row records (a ``read_query``) as the lines of COPY's
-- text format a PostgreSQL target's typed copy task takes into a temporary table
-- (postgres/sql/integrate/typed_records_in.sql): repl_key, action, content, oldcontent, one
-- line a record, as the queue holds them (the target parses the JSON: its values are
-- taken out as they are from a PostgreSQL source's). Escaped as range_text.sql escapes.
SELECT CAST(CONCAT(sp_r.repl_key, CHAR(9), sp_r.db_action, CHAR(9), $raw{esc_content}, CHAR(9),
                   $raw{esc_old}, CHAR(10)) AS BINARY) AS line
  FROM ($raw{query}) sp_r WHERE sp_r.repl_key >= $raw{lo} AND sp_r.repl_key < $raw{hi}
