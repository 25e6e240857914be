-- The snapshots of tables into this location (syncpoint snapshot), one row per application,
-- capture location and table: the tick the copy started after (t0), how far the copy got
-- (next_lo: the partition value the next chunk starts at; NULL when every chunk is in),
-- and whether it finished. Rounds of a table start only from a finished snapshot.
CREATE TABLE IF NOT EXISTS ${snapshots} (
    application_name  text NOT NULL,
    location          text NOT NULL,
    table_name        text NOT NULL,
    state             text NOT NULL,
    t0                bigint NOT NULL,
    stream_id         text NOT NULL,
    lo                text,
    hi                text,
    next_lo           text,
    step              bigint,
    rows_copied       bigint NOT NULL,
    rows_estimated    bigint NOT NULL,
    truncate_pending  bigint NOT NULL,
    started_at        timestamptz,
    updated_at        timestamptz,
    finished_at       timestamptz,
    PRIMARY KEY (application_name, location, table_name)
)
