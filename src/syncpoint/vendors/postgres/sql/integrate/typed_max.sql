-- The greatest key a target holds (its unique index on the key answers): the typed staging's
-- upserts above it are new rows.
SELECT max(t.$raw{key}) FROM $raw{target} t
