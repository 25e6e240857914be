-- Everything cdr add made for one table, and its rows in the bookkeeping tables.
DROP TRIGGER IF EXISTS $raw{trg_bi}
---
DROP TRIGGER IF EXISTS $raw{trg_bu}
---
DROP TRIGGER IF EXISTS $raw{trg_ad}
---
ALTER TABLE $raw{target} $raw{drop_columns}
---
DELETE FROM ${cdr} WHERE table_name = %(table)s
---
DELETE FROM ${tombstones} WHERE table_name = %(table)s
