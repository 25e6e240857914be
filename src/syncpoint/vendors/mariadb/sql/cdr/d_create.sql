-- The incoming rows of one window and action, converted to the target's types (sp_v<i>),
-- with what the decisions need (vendors/cdrbase.py names the columns). A temporary table
-- outlives a rollback here: made afresh for every window.
DROP TEMPORARY TABLE IF EXISTS ${d}
---
CREATE TEMPORARY TABLE ${d} ($raw{meta_defs})
SELECT $raw{typed} FROM $raw{target} t WHERE FALSE
