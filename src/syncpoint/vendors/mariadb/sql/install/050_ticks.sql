CREATE TABLE IF NOT EXISTS ${ticks} (
  tick_id    BIGINT NOT NULL,
  made_at    DATETIME(6) NOT NULL,
  guaranteed DATETIME(6) NOT NULL,
  records    BIGINT NOT NULL,
  PRIMARY KEY (tick_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
