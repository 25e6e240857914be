-- How many tombstones this site holds, and the age in seconds of the oldest (by this
-- site's clock, which wrote it): what purge has yet to take away.
SELECT count(*), EXTRACT(EPOCH FROM clock_timestamp() - min(deleted_at))::float8
FROM ${tombstones}
