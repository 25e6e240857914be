-- Net upserts of one window from its typed staging into a target without a unique index
-- on the key (the rows having the keys went first: typed_delete.sql of the upserts).
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = 'U' ORDER BY s.sp_repl_key
