-- One task's operations of a round (PostgreSQL's window/ops_out.sql in COPY's text form:
-- tab-separated, backslash escapes, \N for NULL; a JSON text holds no raw control
-- character that LOAD DATA would read otherwise), into the staging; netted by ops_net.sql.
-- $raw{extra}: the user variables of columns that follow (window/ops_out_net.sql's count).
LOAD DATA LOCAL INFILE $raw{file} INTO TABLE ${staging} CHARACTER SET utf8mb4
  FIELDS TERMINATED BY '\t' ENCLOSED BY '' ESCAPED BY '\\' LINES TERMINATED BY '\n'
  (application_name, sync_name, round_id, tbl, action, content, repl_key, origin, sp_key,
   sp_sub $raw{extra})
