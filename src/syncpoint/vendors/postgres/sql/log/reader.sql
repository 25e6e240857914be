-- What a tick's SQL functions would decode: the WAL from the slot's restart position (which
-- an open transaction holds back) to the insert position, and the part of it that is new
-- (from the position the slot confirmed).
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), s.restart_lsn)::bigint,
       pg_wal_lsn_diff(pg_current_wal_insert_lsn(), s.confirmed_flush_lsn)::bigint
  FROM pg_replication_slots s
 WHERE s.slot_name = %(slot)s AND s.database = current_database()
