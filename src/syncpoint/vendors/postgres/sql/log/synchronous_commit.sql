-- A synchronous commit whatever the server's default: the commit flushes the WAL up to the
-- horizon, which decoding reads only once flushed.
SET LOCAL synchronous_commit = on
