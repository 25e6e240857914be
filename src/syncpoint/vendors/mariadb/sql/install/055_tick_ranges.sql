-- What each tick holds, as repl_key ranges (stream.py), so that a tick never writes the
-- queue's records: the runs of consecutive keys a tick found committed (`stamped` 0: the
-- records in [lo, hi] whose `context` is NULL are the tick's), and for a tick whose records
-- were written with their `context` (log capture's drain, and the ticks of versions that
-- stamped every record) one range from its lowest to its highest key (`stamped` 1: the
-- records in it with that context).
CREATE TABLE IF NOT EXISTS ${tick_ranges} (
  lo      BIGINT NOT NULL,
  hi      BIGINT NOT NULL,
  tick_id BIGINT NOT NULL,
  stamped TINYINT NOT NULL,
  PRIMARY KEY (lo, stamped),
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
