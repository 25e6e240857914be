-- The gates of this prefix (docs/objects.md, "Gate states"): one row per gate. changed_at is UTC text from the
-- database's clock ('YYYY-MM-DD HH:MM:SS.SSS').
CREATE TABLE IF NOT EXISTS ${table} (
  gate_name  TEXT NOT NULL PRIMARY KEY,
  state      TEXT NOT NULL CHECK (state IN ('OperationalSysLoading',
             'OperationalSysLoaded', 'WarehouseLoading', 'WarehouseLoaded')),
  changed_at TEXT NOT NULL,
  host       TEXT,
  pid        INTEGER,
  command    TEXT,
  token      TEXT,
  turns      INTEGER NOT NULL DEFAULT 0
)
