-- Only after the queue's transaction committed: the slot never passes what is stored.
SELECT pg_replication_slot_advance(%(slot)s, %(lsn)s::pg_lsn)
