-- The drains' lock (lock.sql), taken only if free: status reads the slot between drains.
SELECT pg_try_advisory_lock(hashtext(%(key)s))
