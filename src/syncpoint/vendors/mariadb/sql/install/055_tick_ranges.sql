-- What ticks cover without touching the queue's records (stream.py): each tick records the
-- runs of consecutive repl_keys it found committed, as [lo, hi] with its number; a record
-- whose `context` is NULL belongs to the tick of the run that holds it.
CREATE TABLE IF NOT EXISTS ${tick_ranges} (
  lo      BIGINT NOT NULL,
  hi      BIGINT NOT NULL,
  tick_id BIGINT NOT NULL,
  PRIMARY KEY (lo),
  KEY by_tick (tick_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
---
-- The repl_keys at or below the service row's max_key that no tick covers yet: keys taken by
-- a transaction still open when a later one committed (or rolled back, or never used), where
-- a record may still appear. `since`: a time after those keys were taken; once every open
-- transaction started after it, nothing can appear there any more.
CREATE TABLE IF NOT EXISTS ${tick_holes} (
  lo    BIGINT NOT NULL,
  hi    BIGINT NOT NULL,
  since DATETIME(6) NOT NULL,
  PRIMARY KEY (lo)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
