-- The state every read of a sync group's snapshot sees: this transaction (REPEATABLE
-- READ, kept open until the group is copied) exports its snapshot, and each reading
-- session imports it (import.sql). Reads only: writers never wait for it.
SELECT pg_export_snapshot()
