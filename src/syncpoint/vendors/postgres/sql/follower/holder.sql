-- The session holding the follower lock of a key in this database, if any: a one-argument
-- advisory lock shows its bigint key split into classid (high half) and objid (low half).
SELECT a.application_name, host(a.client_addr), a.pid
FROM pg_locks l
JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(%s, 0)
