-- The change queue. repl_key is an AUTO_INCREMENT: InnoDB persists its counter in the
-- table's root page, redo-logged (MariaDB >= 10.2.4, MySQL >= 8.0), so neither purging the
-- newest rows nor a restart or crash recovery hands out a key twice. `context` is the tick of
-- a record written in it already (log capture's drain; earlier versions stamped every
-- record); NULL for the others, whose tick is that of the range holding them (tick_ranges).
CREATE TABLE IF NOT EXISTS ${items} (
  repl_key    BIGINT NOT NULL AUTO_INCREMENT,
  context     BIGINT NULL,
  trans_key   VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  dbid        VARCHAR(64) NOT NULL,
  tablename   VARCHAR(64) NOT NULL,
  db_catalog  VARCHAR(64) NULL,
  db_schema   VARCHAR(64) NULL,
  guid        CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  db_action   VARCHAR(8) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  content     LONGTEXT NULL,
  oldcontent  LONGTEXT NULL,
  version     INT NOT NULL,
  captured_at DATETIME(6) NOT NULL,
  PRIMARY KEY (repl_key),
  KEY by_context (context),
  KEY by_table (tablename, context)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
