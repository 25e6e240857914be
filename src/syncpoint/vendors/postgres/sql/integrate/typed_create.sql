-- One window's typed staging for one round (the direct path): its operations with the
-- target's column values already in their types, netted in place, applied and dropped by
-- the round's transaction. Unlogged: a crash empties it, and nothing of it was applied.
DROP TABLE IF EXISTS $raw{staging}
---
CREATE UNLOGGED TABLE $raw{staging} (
    sp_repl_key bigint NOT NULL,
    sp_sub      smallint NOT NULL,
    sp_action   text NOT NULL,
    sp_key      text
    $raw{columns}
)
