-- One row. `context` is the last tick (the safe horizon); `guaranteed` the capture-clock time
-- before which every captured change is at or below it; `max_key` the highest repl_key ever
-- covered by a tick (a counter found at or below it means the queue was reset: the stream
-- regressed); `polled_key` the queue's high-water mark at the last poll_ddl.
CREATE TABLE IF NOT EXISTS ${service_context} (
  id           TINYINT NOT NULL,
  context      BIGINT NOT NULL,
  stream_id    VARCHAR(64) CHARACTER SET ascii NOT NULL,
  location     VARCHAR(64) NOT NULL,
  installed_at DATETIME(6) NOT NULL,
  guaranteed   DATETIME(6) NULL,
  ticked_at    DATETIME(6) NULL,
  max_key      BIGINT NOT NULL DEFAULT 0,
  polled_key   BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
