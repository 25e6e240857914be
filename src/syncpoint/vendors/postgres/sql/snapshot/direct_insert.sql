-- A chunk's typed rows into a target that has no row in the chunk's key range (emptied by
-- --truncate, or found so by direct_any): the same rows an upsert would give, without the
-- upsert's conflict check of every row (about half its time). Run under a savepoint: a row
-- there after all (written by something else meanwhile) makes the caller upsert instead.
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{columns} FROM ${staging} WHERE ${attempt} = %s
