SELECT gtid, log_file, log_pos, event_at, drained_at, lost FROM ${log_state} WHERE id = 1
