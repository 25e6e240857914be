-- A session lock: the server releases it when the session ends, a killed follower's too.
SELECT pg_try_advisory_lock(hashtextextended(%s, 0))
