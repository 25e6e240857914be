-- The keys of a snapshot chunk, for snapshot_prune.sql (bound by the caller row by row),
-- in columns of the key columns' affinities: a comparison that converts the indexed
-- column's values cannot use its index (each target row would scan them all).
DROP TABLE IF EXISTS temp.${spare}
---
CREATE TEMP TABLE ${spare} AS SELECT $raw{columns} FROM $raw{target} LIMIT 0
