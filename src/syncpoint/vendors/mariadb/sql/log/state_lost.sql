-- The stored position is gone from the binary log: start again at the current position,
-- under a new stream identity (positions of the old stream are refused until a snapshot).
UPDATE ${log_state}
   SET gtid = @@global.gtid_binlog_pos, log_file = NULL, log_pos = NULL, event_at = NULL,
       drained_at = UTC_TIMESTAMP(6), lost = %(reason)s
 WHERE id = 1
---
UPDATE ${service_context} SET stream_id = %(stream_id)s WHERE id = 1
---
UPDATE ${tables} SET status = 'ERROR', reason = %(reason)s WHERE status <> 'DROPPED'
