-- How many tombstones this site holds, and the age in seconds of the oldest (by this
-- site's clock, which wrote it in UTC): what purge has yet to take away.
SELECT count(*), (julianday('now') - julianday(min(deleted_at))) * 86400.0
FROM ${tombstones}
