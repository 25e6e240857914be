-- Stamps of one channel and integrate location are written by one run at a time.
SELECT pg_advisory_xact_lock(hashtextextended('syncpoint stamps ' || %s || ' ' || %s, 0))
