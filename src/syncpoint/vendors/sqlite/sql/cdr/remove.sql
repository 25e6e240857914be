-- Everything cdr add made for one table apart from its columns (cdr.py drops them after
-- capture's triggers), and its rows in the bookkeeping tables.
DROP TRIGGER IF EXISTS $raw{trg_ai}
---
DROP TRIGGER IF EXISTS $raw{trg_au}
---
DROP TRIGGER IF EXISTS $raw{trg_ad}
---
DELETE FROM ${cdr} WHERE table_name = :table
---
DELETE FROM ${tombstones} WHERE table_name = :table
