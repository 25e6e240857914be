-- Control tables of an integrate location (docs/objects.md); idempotent. CREATE ... IF NOT EXISTS
-- is not safe against itself (two first runs at once collide in pg_type): one at a time.
SELECT pg_advisory_xact_lock(hashtextextended('syncpoint integrate ' || current_schema(), 0))
---
-- The last applied tick per application, capture location and table, and its stream.
CREATE TABLE IF NOT EXISTS ${positions} (
    application_name  text NOT NULL,
    location          text NOT NULL,
    table_name        text NOT NULL,
    context           bigint NOT NULL,
    stream_id         text NOT NULL,
    updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (application_name, location, table_name)
)
---
-- The tick each sync group's round runs up to, stored before the round reads anything.
CREATE TABLE IF NOT EXISTS ${sync_points} (
    application_name  text NOT NULL,
    location          text NOT NULL,
    sync_name         text NOT NULL,
    context           bigint NOT NULL,
    stream_id         text NOT NULL,
    sampled_at        timestamptz,
    guaranteed_at     timestamptz,
    PRIMARY KEY (application_name, location, sync_name)
)
---
-- Tables whose rounds stopped (a DDL the policy stops on, a change that cannot be applied).
CREATE TABLE IF NOT EXISTS ${stops} (
    application_name  text NOT NULL,
    location          text NOT NULL,
    table_name        text NOT NULL,
    sync_name         text NOT NULL,
    context           bigint,
    repl_key          bigint,
    reason            text NOT NULL,
    stopped_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (application_name, location, table_name)
)
---
-- Net rows of a round, written by Spark, applied and deleted by the round's transaction.
-- Unlogged: its rows are written, applied and deleted within a round (a server crash empties
-- it, and the round's count check refuses what is missing); no WAL for them.
CREATE UNLOGGED TABLE IF NOT EXISTS ${staging} (
    application_name  text NOT NULL,
    sync_name         text NOT NULL,
    round_id          text NOT NULL,
    tbl               integer NOT NULL,
    action            text NOT NULL,
    content           text,
    repl_key          bigint NOT NULL,
    origin            text, -- where the change was first made (several in a ring's window)
    -- a round's direct path: the operation's key as the source wrote it, and its place
    -- among the operations of its record (-1, 0, 1); the net rows are the rows left
    key               text,
    sub               smallint
)
---
CREATE INDEX IF NOT EXISTS ${staging_idx} ON ${staging} (round_id, tbl, action)
---
-- Target tables syncpoint created for a snapshot whose indexes and foreign keys wait for
-- the load (a snapshot that failed and runs again adds them all the same).
CREATE TABLE IF NOT EXISTS ${created} (
    table_name        text PRIMARY KEY,
    location          text NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp()
)
