-- Log capture's origins: an apply transaction writes its origin here (set_origin) before
-- its changes, so the binary log shows the row event of this table first; the drain tags
-- the transaction's later changes with it. One row per session (the counter makes every
-- write a change, so that it is always logged).
CREATE TABLE IF NOT EXISTS ${origin_marks} (
  session BIGINT UNSIGNED NOT NULL,
  origin  VARCHAR(64) NULL,
  n       BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (session)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
