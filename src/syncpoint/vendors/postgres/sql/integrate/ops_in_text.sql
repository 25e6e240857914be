-- One task's operations of a round read row by row from another vendor's queue, into the
-- staging (the direct path from a source without COPY: round_direct.RowsCopy).
COPY ${staging} (application_name, sync_name, round_id, tbl, action, content, repl_key, origin,
                 key, sub)
FROM STDIN
