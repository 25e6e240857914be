-- The keys a window upserts, for delete_spare.sql (bound by the caller row by row).
DROP TABLE IF EXISTS temp.${spare}
---
CREATE TEMP TABLE ${spare} ($raw{columns})
