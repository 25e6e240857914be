-- The position of a fresh install: the binary log's current GTID position (a reinstall
-- keeps the stored one).
INSERT IGNORE INTO ${log_state} (id, gtid, drained_at)
VALUES (1, @@global.gtid_binlog_pos, UTC_TIMESTAMP(6))
