-- Everything cdr add made for one table, and its rows in the bookkeeping tables.
DROP TRIGGER IF EXISTS $raw{trg_row} ON $raw{target}
---
DROP TRIGGER IF EXISTS $raw{trg_del} ON $raw{target}
---
DROP FUNCTION IF EXISTS $raw{fn}()
---
ALTER TABLE $raw{target} $raw{drop_columns}
---
-- Capture's function for the table made again for its columns now, at the same shape
-- version (the bookkeeping columns are no change of its shape).
SELECT $raw{make_capture}(t.id) FROM $raw{capture_tables} t
 WHERE t.relid = $raw{target_text}::regclass
---
DELETE FROM ${cdr} WHERE table_name = %(table)s
---
DELETE FROM ${tombstones} WHERE table_name = %(table)s
