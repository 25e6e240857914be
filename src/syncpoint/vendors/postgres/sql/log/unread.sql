-- The WAL written after what capture has read (the slot's confirmed position, or what the
-- queue stores when that is further): what the next read goes through. Read only.
SELECT pg_wal_lsn_diff(pg_current_wal_lsn(),
                       GREATEST(%(confirmed)s::pg_lsn, %(decoded)s::pg_lsn))::bigint
