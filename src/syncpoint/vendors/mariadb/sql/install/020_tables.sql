-- The watched tables. Besides the columns every vendor has: `reason` (why status is ERROR),
-- `trigger_version` (the shape version the current triggers write; differs from `version`
-- until poll_ddl has regenerated them), `inno_id`/`created` (InnoDB table id and catalog
-- create time at the last poll: TRUNCATE detection), `witness` (primary key of one row seen
-- at the last poll), `keycols` (JSON list of the configured key; NULL: the primary key),
-- `refresh_from` (rows changed after this repl_key must be captured again
-- once the triggers are regenerated; -1: the whole table), `pending_event` (a TRUNCATE
-- whose record is written with the re-capture, in one transaction).
CREATE TABLE IF NOT EXISTS ${tables} (
  catalogname     VARCHAR(64) NOT NULL,
  schemaname      VARCHAR(64) NOT NULL,
  tablename       VARCHAR(64) NOT NULL,
  actions         VARCHAR(3) CHARACTER SET ascii NULL,
  status          VARCHAR(16) CHARACTER SET ascii NOT NULL,
  reason          TEXT NULL,
  repl_key        BIGINT NOT NULL DEFAULT 0,
  trigger_name    VARCHAR(255) NULL,
  debug           TINYINT NOT NULL DEFAULT 0,
  version         INT NOT NULL DEFAULT 1,
  trigger_version INT NULL,
  inno_id         BIGINT NULL,
  created         DATETIME NULL,
  witness         LONGTEXT NULL,
  keycols         TEXT NULL,
  refresh_from    BIGINT NULL,
  pending_event   VARCHAR(8) CHARACTER SET ascii NULL,
  PRIMARY KEY (schemaname, tablename)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
