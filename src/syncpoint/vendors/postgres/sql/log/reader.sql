-- What a tick's SQL functions would decode again: the WAL from the slot's restart position
-- (which an open transaction holds back) to the insert position, and that restart position.
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), s.restart_lsn)::bigint, s.restart_lsn::text
  FROM pg_replication_slots s
 WHERE s.slot_name = %(slot)s AND s.database = current_database()
