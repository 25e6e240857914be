-- Everything cdr add made for one table, and its rows in the bookkeeping tables.
DROP TRIGGER IF EXISTS $raw{trg_row} ON $raw{target}
---
DROP TRIGGER IF EXISTS $raw{trg_del} ON $raw{target}
---
DROP FUNCTION IF EXISTS $raw{fn}()
---
ALTER TABLE $raw{target} $raw{drop_columns}
---
DELETE FROM ${cdr} WHERE table_name = %(table)s
---
DELETE FROM ${tombstones} WHERE table_name = %(table)s
