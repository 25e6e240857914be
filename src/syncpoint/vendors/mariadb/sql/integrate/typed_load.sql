-- One file of a window's typed net operations (postgres/sql/window/ops_out_net_typed.sql,
-- COPY's text form) into its typed staging: each value read into its column's type as an
-- assignment of the text, as the JSON path's upsert assigns JSON_VALUE's text; the values
-- the JSON path converts by an expression (binary, timestamps) by the same expression in
-- SET. $raw{file}: the file's name.
LOAD DATA LOCAL INFILE $raw{file} INTO TABLE $raw{staging} CHARACTER SET utf8mb4
  FIELDS TERMINATED BY '\t' ENCLOSED BY '' ESCAPED BY '\\' LINES TERMINATED BY '\n'
  (sp_repl_key, sp_sub, sp_action, sp_keyless, sp_records $raw{fields})
  $raw{set}
