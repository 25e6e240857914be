-- The slot as the server sees it: its kind, database, plugin, how far it confirmed, how
-- much WAL it holds back, and wal_status ('lost' once invalidated by max_slot_wal_keep_size).
SELECT s.slot_type, s.database::text, s.plugin, s.confirmed_flush_lsn::text,
       s.restart_lsn::text, s.wal_status,
       pg_wal_lsn_diff(pg_current_wal_lsn(), s.restart_lsn)::bigint, s.active_pid
  FROM pg_replication_slots s
 WHERE s.slot_name = %(slot)s AND s.database = current_database()
