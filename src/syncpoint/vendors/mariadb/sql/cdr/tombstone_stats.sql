-- How many tombstones this site holds, and the age in seconds of the oldest (by this
-- site's clock, which wrote it in UTC): what purge has yet to take away.
SELECT COUNT(*), TIMESTAMPDIFF(MICROSECOND, MIN(deleted_at), UTC_TIMESTAMP(6)) / 1000000
FROM ${tombstones}
