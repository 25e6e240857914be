-- The DDL records written by poll_ddl, kept apart from the queue so `status` finds the
-- recent ones without scanning it.
CREATE TABLE IF NOT EXISTS ${ddl_log} (
  repl_key    BIGINT NOT NULL,
  tablename   VARCHAR(64) NOT NULL,
  db_action   VARCHAR(8) CHARACTER SET ascii NOT NULL,
  version     INT NOT NULL,
  captured_at DATETIME(6) NOT NULL,
  detail      TEXT NULL,
  PRIMARY KEY (repl_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
