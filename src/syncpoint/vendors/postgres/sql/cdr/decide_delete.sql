-- Which incoming deletes take effect, and which leave a tombstone.
UPDATE ${d} AS d SET $raw{delete}
---
UPDATE ${d} AS d SET $raw{tomb}
---
-- The groups the delete's window changed before it deleted, taken as an update's: into
-- the row it loses to, or into the row it deletes (captured so, and kept in its tombstone).
UPDATE ${d} AS d SET $raw{takes}
---
UPDATE ${d} AS d SET $raw{flags}
