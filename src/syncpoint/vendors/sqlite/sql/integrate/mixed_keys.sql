-- The keys a window upserts (every origin's part), in columns of the key columns' own
-- affinities (a text '01' is the integer 1 in an INTEGER column), each beside the
-- source's text of it, for mixed_found.sql (bound by the caller row by row).
DROP TABLE IF EXISTS temp.${spare}
---
CREATE TEMP TABLE ${spare} AS SELECT $raw{columns}, '' AS sp_raw FROM $raw{target} LIMIT 0
