-- Whether a session streams the slot now, and whether it confirmed the horizon (a tick
-- that cannot read the slot waits for that session's drain to pass its horizon).
SELECT s.active_pid, s.confirmed_flush_lsn >= %(upto)s::pg_lsn
  FROM pg_replication_slots s
 WHERE s.slot_name = %(slot)s AND s.database = current_database()
