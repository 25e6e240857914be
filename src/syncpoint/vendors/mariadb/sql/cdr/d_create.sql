-- The incoming rows of one window and action, converted to the target's types (sp_v<i>;
-- sp_o<i>, nullable: a deleted row's values, see d_tombstone),
-- with what the decisions need (vendors/cdrbase.py names the columns). A temporary table
-- outlives a rollback here: made afresh for every window.
DROP TEMPORARY TABLE IF EXISTS ${d}
---
CREATE TEMPORARY TABLE ${d} ($raw{meta_defs})
SELECT $raw{typed} FROM $raw{target} t LEFT JOIN $raw{target} o ON FALSE WHERE FALSE
