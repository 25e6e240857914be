-- One task's operations of a round, at the target (the direct path: window/ops_out.sql).
COPY ${ops} (application_name, sync_name, round_id, tbl, action, content, repl_key, origin,
             key, sub)
FROM STDIN (FORMAT binary)
