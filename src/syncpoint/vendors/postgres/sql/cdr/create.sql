-- The conflict bookkeeping of a location (made by cdr add, kept until the last cdr remove):
-- the tables under conflict resolution, their deleted keys, the conflicts decided here.
CREATE TABLE IF NOT EXISTS ${cdr} (
    table_name  text PRIMARY KEY,
    resolution  text NOT NULL,
    groups      text NOT NULL,
    key         text NOT NULL
)
---
-- A deleted key per incarnation: the key version it had and the delete's version
-- (time|location), so a late update of that incarnation is resolved against the delete;
-- the row this site deleted, when it had one of that incarnation (row_to_json), made again
-- if a change of the incarnation beats the delete.
-- ended_here: the version of a delete this site applied and did not pass on (its row won
-- against it, or a newer incarnation was here), while it is the tombstone's version: the
-- sites after this one on that delete's way never get it, and purge does not wait for them.
CREATE TABLE IF NOT EXISTS ${tombstones} (
    table_name  text NOT NULL,
    key         text NOT NULL,
    kv          bigint NOT NULL,
    version     text NOT NULL,
    deleted_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    deleted_row text,
    ended_here  text,
    PRIMARY KEY (table_name, key, kv)
)
---
CREATE TABLE IF NOT EXISTS ${conflicts} (
    id              bigserial PRIMARY KEY,
    table_name      text NOT NULL,
    key             text NOT NULL,
    column_group    text NOT NULL,
    local_row       text,
    local_version   text,
    remote_row      text,
    remote_version  text,
    resolution      text NOT NULL,
    winner          text NOT NULL,
    decided_at      timestamptz NOT NULL DEFAULT clock_timestamp()
)
---
-- When each receive stamp of this location moved (the stamp, and this location's clock at
-- the move): everything the capture location captured before the stamp was here by then,
-- and so captured here for the next site of a ring. Purge bounds tombstones with it.
CREATE TABLE IF NOT EXISTS ${hops} (
    capture_loc  text NOT NULL,
    cap_begin    timestamptz NOT NULL,
    recorded_at  timestamptz NOT NULL,
    PRIMARY KEY (capture_loc, cap_begin)
)
