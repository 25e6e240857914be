-- One task's operations of a round, into the staging (the direct path: window/ops_out.sql);
-- the round nets them there (ops_net.sql).
COPY ${staging} (application_name, sync_name, round_id, tbl, action, content, repl_key, origin,
                 key, sub)
FROM STDIN (FORMAT binary)
