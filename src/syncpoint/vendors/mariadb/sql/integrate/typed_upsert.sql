-- Net upserts of one window from its typed staging, in position order: the values are in
-- the target's types already (no JSON parsed, nothing converted); every column is set, the
-- key's too, as upsert.sql sets them.
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM $raw{staging} s
WHERE s.sp_action = 'U'
ORDER BY s.sp_repl_key
ON DUPLICATE KEY UPDATE $raw{on_conflict}
