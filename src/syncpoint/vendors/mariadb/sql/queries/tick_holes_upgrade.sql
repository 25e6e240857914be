-- The last step of making the range tables over an earlier version's queue (stream.py,
-- ensure_ranges): the hole table (as install/055_tick_ranges.sql makes it) made with its
-- one hole, every key up to max_key, by one statement, so that the table is there only
-- with its hole: its presence tells that the ranges were made.
CREATE TABLE ${tick_holes} (
  lo    BIGINT NOT NULL,
  hi    BIGINT NOT NULL,
  since DATETIME(6) NOT NULL,
  PRIMARY KEY (lo)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
SELECT 1 AS lo, max_key AS hi, UTC_TIMESTAMP(6) AS since
  FROM ${service_context} WHERE id = 1 AND max_key > 0
