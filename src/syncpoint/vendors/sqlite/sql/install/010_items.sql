-- The change queue. AUTOINCREMENT: repl_key never repeats, even after purging the newest rows
-- (a plain INTEGER PRIMARY KEY would hand out max+1 again). Writers are serialized, so
-- repl_key order is commit order. context: the tick that stamped the record (NULL until then).
-- fix: storage-class letters of records whose REAL/BLOB values the tick still has to finish.
CREATE TABLE ${items} (
    repl_key    INTEGER PRIMARY KEY AUTOINCREMENT,
    context     INTEGER,
    trans_key   INTEGER NOT NULL,
    dbid        TEXT NOT NULL,
    tablename   TEXT NOT NULL,
    db_catalog  TEXT,
    db_schema   TEXT NOT NULL,
    guid        TEXT NOT NULL,
    db_action   TEXT NOT NULL,
    content     TEXT,
    oldcontent  TEXT,
    version     INTEGER NOT NULL,
    captured_at TEXT NOT NULL,
    fix         TEXT
)
