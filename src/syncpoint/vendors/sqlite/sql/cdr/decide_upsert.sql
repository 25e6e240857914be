-- Which groups each incoming insert/update takes (core/cdr.py has the rules as a table).
UPDATE ${d} AS d SET $raw{takes}
---
-- Rows to update (some group taken) and keys to insert (no row; no tombstone of the same
-- or a newer incarnation, or one of the same that the change wins against).
UPDATE ${d} AS d SET $raw{flags}
