-- Net rows of a round netted by the driver, in one COPY stream (see staging_insert.sql).
COPY ${staging} (application_name, sync_name, round_id, tbl, action, content, repl_key, origin)
FROM STDIN
