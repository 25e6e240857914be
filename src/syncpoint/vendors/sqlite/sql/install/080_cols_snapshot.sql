-- The columns of each watched table as capture last saw them; poll_ddl() compares them with
-- cols_view and writes a DDL record for each difference.
CREATE TABLE ${cols_snapshot} (
    tablename TEXT NOT NULL,
    cid       INTEGER NOT NULL,
    name      TEXT NOT NULL,
    type      TEXT NOT NULL,
    "notnull" INTEGER NOT NULL,
    pk        INTEGER NOT NULL,
    PRIMARY KEY (tablename, cid)
)
