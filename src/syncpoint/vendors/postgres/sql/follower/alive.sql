-- Whether the lock's session is still there (a restarted server ended it, and its lock).
SELECT 1
