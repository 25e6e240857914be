-- The gates of this prefix (docs/objects.md, "Gate states"): one row per gate. changed_at holds UTC from the
-- database's clock, so that the age of a state means the same on every host that reads it.
CREATE TABLE IF NOT EXISTS ${table} (
  gate_name  VARCHAR(100) NOT NULL PRIMARY KEY,
  state      VARCHAR(32) NOT NULL CHECK (state IN ('OperationalSysLoading',
             'OperationalSysLoaded', 'WarehouseLoading', 'WarehouseLoaded')),
  changed_at DATETIME(6) NOT NULL,
  host       VARCHAR(255),
  pid        INT,
  command    TEXT,
  token      VARCHAR(32),
  turns      BIGINT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
