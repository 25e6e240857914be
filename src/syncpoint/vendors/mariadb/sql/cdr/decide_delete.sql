-- Which incoming deletes take effect, and which leave a tombstone.
UPDATE ${d} d SET $raw{delete}
---
UPDATE ${d} d SET $raw{tomb}
---
-- A delete that loses to the row: the groups its window changed, taken as an update's.
UPDATE ${d} d SET $raw{takes}
---
UPDATE ${d} d SET $raw{flags}
