-- Which incoming deletes take effect, and which leave a tombstone.
UPDATE ${d} d SET $raw{delete}
---
UPDATE ${d} d SET $raw{tomb}
