SELECT pg_advisory_unlock(hashtext(%(key)s))
