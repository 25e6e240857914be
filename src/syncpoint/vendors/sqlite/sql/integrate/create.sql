-- Control tables of an integrate location (docs/objects.md); idempotent.
CREATE TABLE IF NOT EXISTS ${positions} (
    application_name  TEXT NOT NULL,
    location          TEXT NOT NULL,
    table_name        TEXT NOT NULL,
    context           INTEGER NOT NULL,
    stream_id         TEXT NOT NULL,
    updated_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    PRIMARY KEY (application_name, location, table_name)
)
---
CREATE TABLE IF NOT EXISTS ${sync_points} (
    application_name  TEXT NOT NULL,
    location          TEXT NOT NULL,
    sync_name         TEXT NOT NULL,
    context           INTEGER NOT NULL,
    stream_id         TEXT NOT NULL,
    sampled_at        TEXT,
    guaranteed_at     TEXT,
    PRIMARY KEY (application_name, location, sync_name)
)
---
CREATE TABLE IF NOT EXISTS ${stops} (
    application_name  TEXT NOT NULL,
    location          TEXT NOT NULL,
    table_name        TEXT NOT NULL,
    sync_name         TEXT NOT NULL,
    context           INTEGER,
    repl_key          INTEGER,
    reason            TEXT NOT NULL,
    stopped_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    PRIMARY KEY (application_name, location, table_name)
)
---
CREATE TABLE IF NOT EXISTS ${staging} (
    application_name  TEXT NOT NULL,
    sync_name         TEXT NOT NULL,
    round_id          TEXT NOT NULL,
    tbl               INTEGER NOT NULL,
    action            TEXT NOT NULL,
    content           TEXT,
    repl_key          INTEGER NOT NULL,
    origin            TEXT  -- where the change was first made (several in a ring's window)
)
---
CREATE INDEX IF NOT EXISTS ${staging_idx} ON ${staging} (round_id, tbl, action, repl_key)
---
-- Target tables syncpoint created for a snapshot whose indexes and foreign keys wait for
-- the load (a snapshot that failed and runs again adds them all the same).
CREATE TABLE IF NOT EXISTS ${created} (
    table_name        TEXT PRIMARY KEY,
    location          TEXT NOT NULL,
    created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
)
