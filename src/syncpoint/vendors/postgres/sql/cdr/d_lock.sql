-- The local rows of the incoming keys, locked until the round commits: no local write
-- changes them between the decisions and the writes.
SELECT 1 FROM $raw{target} t JOIN ${d} d ON $raw{match} FOR UPDATE OF t
