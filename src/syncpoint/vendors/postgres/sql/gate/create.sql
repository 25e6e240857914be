-- The gates of this prefix (docs/objects.md, "Gate states"): one row per gate. changed_at is the database's clock,
-- so that the age of a state means the same on every host that reads it.
CREATE TABLE IF NOT EXISTS ${table} (
  gate_name  varchar(100) PRIMARY KEY,
  state      varchar(32) NOT NULL CHECK (state IN ('OperationalSysLoading',
             'OperationalSysLoaded', 'WarehouseLoading', 'WarehouseLoaded')),
  changed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  host       text,
  pid        integer,
  command    text,
  token      varchar(32),
  turns      bigint NOT NULL DEFAULT 0
)
