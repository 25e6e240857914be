-- One install/uninstall of a prefix at a time.
SELECT pg_advisory_xact_lock(hashtext(%(key)s))
