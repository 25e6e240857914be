-- The keys to delete, converted to the key columns' own types by assignment.
DROP TEMPORARY TABLE IF EXISTS ${tmp}
---
CREATE TEMPORARY TABLE ${tmp} ENGINE=InnoDB SELECT $raw{columns} FROM $raw{target} LIMIT 0
