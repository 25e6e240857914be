-- Net upserts of one window from its typed staging, in position order ($raw{rest}: those
-- typed_fresh.sql did not insert).
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = 'U' AND $raw{rest}
 ORDER BY s.sp_repl_key
ON CONFLICT ($raw{key}) DO $raw{on_conflict}
