-- One drain of this prefix at a time (held by the session across its batches and the
-- slot's advance; a killed process's session ends and releases it).
SELECT pg_advisory_lock(hashtext(%(key)s))
