-- Which incoming deletes take effect, and which leave a tombstone.
UPDATE ${d} AS d SET $raw{delete}
---
UPDATE ${d} AS d SET $raw{tomb}
