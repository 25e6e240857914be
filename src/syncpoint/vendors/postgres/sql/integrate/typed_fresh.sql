-- Net upserts of one window whose key is greater or less than every key the target holds
-- ($raw{fresh}): new rows, inserted without the upsert's check of each row for a conflict
-- (a second search of the key's index and a speculative insertion: a third of the
-- upsert's time). Run under a savepoint: a unique key taken after all (a row written by
-- something else, or another unique index's value that an earlier change of the window
-- frees) makes the caller upsert every row in position order instead; so these need no
-- order (no sort), the target's foreign keys being checked at the statement's end.
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM $raw{staging} s
 WHERE s.sp_action = 'U' AND $raw{fresh}
