-- Net deletes of one window whose key can be equal at the target while its text differs
-- (a case- or accent-insensitive collation, PAD SPACE's trailing spaces, ...). The round
-- nets by the text, so one row's class can bring the delete of one text and the upsert of
-- another; the upsert is always the class's last change, made already: a target row equal
-- to a key the window upserts (spare_keys.sql) is that row, and stays.
DELETE t FROM $raw{target} t JOIN ${tmp} d ON $raw{match}
 WHERE NOT EXISTS (SELECT 1 FROM ${spare} u WHERE $raw{spare})
---
DROP TEMPORARY TABLE ${tmp}
---
DROP TEMPORARY TABLE ${spare}
