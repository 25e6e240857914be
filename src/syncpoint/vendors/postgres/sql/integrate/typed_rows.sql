-- The rows a window's typed staging holds, and how many of them are upserts.
SELECT count(*), count(*) FILTER (WHERE sp_action = 'U') FROM $raw{staging}
