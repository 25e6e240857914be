-- The keys a window upserts (all its origins' parts), converted to the key columns' own
-- types and collations by assignment, for delete_spare.sql; indexed for its lookups, a
-- TEXT or BLOB column by a prefix (it has no other way into an index).
DROP TEMPORARY TABLE IF EXISTS ${spare}
---
CREATE TEMPORARY TABLE ${spare} $raw{index} ENGINE=InnoDB
SELECT $raw{columns} FROM $raw{target} LIMIT 0
---
INSERT INTO ${spare} ($raw{columns})
SELECT $raw{values} FROM ${staging} s
WHERE s.round_id = %(round_id)s AND s.tbl BETWEEN %(spare_lo)s AND %(spare_hi)s
  AND s.action = 'U'
