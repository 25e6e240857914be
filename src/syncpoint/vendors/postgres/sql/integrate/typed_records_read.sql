-- A copy task's records in its temporary table (typed_records_create.sql), read by
-- window/ops_typed.sql as it reads a PostgreSQL source's window.
SELECT * FROM pg_temp.sp_records
