-- Which incoming deletes take effect, and which leave a tombstone.
UPDATE ${d} AS d SET $raw{delete}
---
UPDATE ${d} AS d SET $raw{tomb}
---
-- A delete that loses to the row: the groups its window changed, taken as an update's.
UPDATE ${d} AS d SET $raw{takes}
---
UPDATE ${d} AS d SET $raw{flags}
