-- The conflict bookkeeping of a location (made by cdr add, kept until the last cdr remove):
-- the tables under conflict resolution, their deleted keys, the conflicts decided here.
CREATE TABLE IF NOT EXISTS ${cdr} (
    table_name  TEXT NOT NULL PRIMARY KEY,
    resolution  TEXT NOT NULL,
    groups      TEXT NOT NULL,
    key         TEXT NOT NULL
)
---
-- A deleted key per incarnation: the key version it had and the delete's version
-- (time|location), so a late update of that incarnation is resolved against the delete;
-- deleted_at in UTC, when this site wrote it (purge compares it with receive stamps);
-- the row this site deleted, when it had one of that incarnation (a blob as ["x", hex], a
-- real as ["r", text]), made again if a change of the incarnation beats the delete.
-- ended_here: the version of a delete this site applied and did not pass on (its row won
-- against it, or a newer incarnation was here), while it is the tombstone's version: the
-- sites after this one on that delete's way never get it, and purge does not wait for them.
CREATE TABLE IF NOT EXISTS ${tombstones} (
    table_name  TEXT NOT NULL,
    key         TEXT NOT NULL,
    kv          INTEGER NOT NULL,
    version     TEXT NOT NULL,
    deleted_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    deleted_row TEXT,
    ended_here  TEXT,
    PRIMARY KEY (table_name, key, kv)
)
---
CREATE TABLE IF NOT EXISTS ${conflicts} (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    table_name      TEXT NOT NULL,
    key             TEXT NOT NULL,
    column_group    TEXT NOT NULL,
    local_row       TEXT,
    local_version   TEXT,
    remote_row      TEXT,
    remote_version  TEXT,
    resolution      TEXT NOT NULL,
    winner          TEXT NOT NULL,
    decided_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
)
---
-- When each receive stamp of this location moved (the stamp, and this location's clock at
-- the move): everything the capture location captured before the stamp was here by then,
-- and so captured here for the next site of a ring. Purge bounds tombstones with it.
CREATE TABLE IF NOT EXISTS ${hops} (
    capture_loc  TEXT NOT NULL,
    cap_begin    TEXT NOT NULL,
    recorded_at  TEXT NOT NULL,
    PRIMARY KEY (capture_loc, cap_begin)
)
