-- The shape of each watched table as of the last poll_ddl (compared with cols_view).
CREATE TABLE IF NOT EXISTS ${cols_snapshot} (
  schemaname VARCHAR(64) NOT NULL,
  tablename  VARCHAR(64) NOT NULL,
  ordinal    INT NOT NULL,
  colname    VARCHAR(64) NOT NULL,
  coltype    TEXT NOT NULL,
  nullable   TINYINT NOT NULL,
  pk         INT NULL,
  PRIMARY KEY (schemaname, tablename, ordinal)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
