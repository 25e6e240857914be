-- The snapshots of tables into this location (syncpoint snapshot), one row per application,
-- capture location and table: the tick the copy started after (t0), how far the copy got
-- (next_lo: the partition value the next chunk starts at; NULL when every chunk is in),
-- and whether it finished. Rounds of a table start only from a finished snapshot.
CREATE TABLE IF NOT EXISTS ${snapshots} (
    application_name  TEXT NOT NULL,
    location          TEXT NOT NULL,
    table_name        TEXT NOT NULL,
    state             TEXT NOT NULL,
    t0                INTEGER NOT NULL,
    stream_id         TEXT NOT NULL,
    lo                TEXT,
    hi                TEXT,
    next_lo           TEXT,
    step              INTEGER,
    rows_copied       INTEGER NOT NULL,
    rows_estimated    INTEGER NOT NULL,
    truncate_pending  INTEGER NOT NULL,
    started_at        TEXT,
    updated_at        TEXT,
    finished_at       TEXT,
    PRIMARY KEY (application_name, location, table_name)
)
