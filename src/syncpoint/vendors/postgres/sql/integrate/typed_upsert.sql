-- Net upserts of one window from its typed staging, in position order.
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = 'U' ORDER BY s.sp_repl_key
ON CONFLICT ($raw{key}) DO $raw{on_conflict}
