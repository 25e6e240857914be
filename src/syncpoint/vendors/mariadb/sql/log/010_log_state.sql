-- Log capture (log/capture.py): how far the binary log has been drained into ${items}. One
-- row, written in the same transaction as the records it accounts for: `gtid` is the
-- position after the last transaction drained (MariaDB's GTID list, one per domain),
-- `log_file`/`log_pos` where that is in the binary log (for the retained-binlog figures),
-- `event_at` the commit time of that transaction, `drained_at` when the drain ran.
CREATE TABLE IF NOT EXISTS ${log_state} (
  id         TINYINT NOT NULL,
  gtid       VARCHAR(4096) CHARACTER SET ascii NOT NULL,
  log_file   VARCHAR(512) NULL,
  log_pos    BIGINT NULL,
  event_at   DATETIME(6) NULL,
  drained_at DATETIME(6) NULL,
  lost       TEXT NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
