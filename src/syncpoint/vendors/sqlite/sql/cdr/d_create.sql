-- The incoming rows of one window and action, converted to the target's types (sp_v<i>;
-- sp_o<i>, nullable: a deleted row's values, see d_tombstone),
-- with what the decisions need (vendors/cdrbase.py names the columns).
DROP TABLE IF EXISTS temp.${d}
---
CREATE TEMP TABLE ${d} AS
SELECT $raw{meta_select}, $raw{typed}
  FROM $raw{target} AS t LEFT JOIN $raw{target} AS o ON 0 WHERE 0
