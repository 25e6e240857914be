-- The watched tables. status: CREATING until the triggers exist, then OK; DROPPED when the
-- table is gone (reason says more). key_columns: the configured key (JSON) when not the PK.
CREATE TABLE ${tables} (
    catalogname  TEXT,
    schemaname   TEXT NOT NULL,
    tablename    TEXT NOT NULL PRIMARY KEY,
    actions      TEXT,
    status       TEXT NOT NULL,
    reason       TEXT,
    repl_key     INTEGER NOT NULL,
    trigger_name TEXT,
    debug        INTEGER NOT NULL DEFAULT 0,
    version      INTEGER NOT NULL DEFAULT 1,
    key_columns  TEXT
)
