CREATE TABLE IF NOT EXISTS ${debug_table} (
  repl_key BIGINT NOT NULL,
  line     TEXT NOT NULL,
  PRIMARY KEY (repl_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
