-- A chunk's typed rows into the target by key (the values are already the target's types).
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{columns} FROM ${staging} WHERE ${attempt} = %s
ON CONFLICT ($raw{key}) DO $raw{on_conflict}
