UPDATE ${log_state}
   SET gtid = %(gtid)s, log_file = %(log_file)s, log_pos = %(log_pos)s,
       event_at = COALESCE(%(event_at)s, event_at), drained_at = UTC_TIMESTAMP(6)
 WHERE id = 1
