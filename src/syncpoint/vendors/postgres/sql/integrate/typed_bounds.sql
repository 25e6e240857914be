-- The least and the greatest key a target holds (its unique index on the key answers each
-- with one search): the typed staging's upserts outside them are new rows.
SELECT min(t.$raw{key}), max(t.$raw{key}) FROM $raw{target} t
