-- One file of a window's net operations from a MariaDB source (window/ops_out_net.sql's
-- lines without the round's columns: action, row's JSON, repl_key, origin, key, sub, the
-- window's count of change records) into its typed staging. Each target column is set by
-- $raw{set}: the JSON path's own expression of its value over the line's JSON
-- (integrate.py, typed_json_set), assigned to the column's own type. The session keeps the
-- SQL mode and time zone syncpoint's sessions pin, which the apply's upsert converts in
-- (not ops_mode.sql's): the terminators are hex literals, which every mode reads alike.
-- $raw{file}: the file's name.
LOAD DATA LOCAL INFILE $raw{file} INTO TABLE $raw{staging} CHARACTER SET utf8mb4
  FIELDS TERMINATED BY X'09' ENCLOSED BY '' ESCAPED BY X'5C' LINES TERMINATED BY X'0A'
  (@sp_action, @sp_content, sp_repl_key, @sp_origin, @sp_key, sp_sub, sp_records)
  SET sp_action = @sp_action, sp_keyless = @sp_key IS NULL $raw{set}
