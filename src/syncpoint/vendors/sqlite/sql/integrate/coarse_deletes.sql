-- The keys a window deletes, for coarse_keys.sql (bound by the caller row by row).
DROP TABLE IF EXISTS temp.${tmp}
---
CREATE TEMP TABLE ${tmp} ($raw{columns})
