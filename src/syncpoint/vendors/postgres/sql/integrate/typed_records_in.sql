-- A copy task's records of another vendor's source, in COPY's text form written by the
-- source itself (mariadb/sql/window/records_text.sql), into its temporary table.
COPY pg_temp.sp_records (repl_key, db_action, content, oldcontent) FROM STDIN
