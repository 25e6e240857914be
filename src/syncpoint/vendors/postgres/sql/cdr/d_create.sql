-- The incoming rows of one window and action, converted to the target's types (sp_v<i>;
-- sp_o<i>, nullable: a deleted row's values, see d_tombstone),
-- with what the decisions need (vendors/cdrbase.py names the columns). Dropped at the end
-- of the window's apply; a failed round takes it with its rollback.
DROP TABLE IF EXISTS pg_temp.${d}
---
CREATE TEMPORARY TABLE ${d} AS
SELECT $raw{meta_select}, $raw{typed}
  FROM $raw{target} t LEFT JOIN $raw{target} o ON false WHERE false
