-- The snapshots of tables into this location (syncpoint snapshot), one row per application,
-- capture location and table: the tick the copy started after (t0), how far the copy got
-- (next_lo: the partition value the next chunk starts at; NULL when every chunk is in),
-- and whether it finished. Rounds of a table start only from a finished snapshot.
CREATE TABLE IF NOT EXISTS ${snapshots} (
    application_name  varchar(64) NOT NULL,
    location          varchar(64) NOT NULL,
    table_name        varchar(512) NOT NULL,
    state             varchar(64) NOT NULL,
    t0                bigint NOT NULL,
    stream_id         varchar(64) NOT NULL,
    lo                text,
    hi                text,
    next_lo           text,
    step              bigint,
    rows_copied       bigint NOT NULL,
    rows_estimated    bigint NOT NULL,
    truncate_pending  bigint NOT NULL,
    started_at        datetime(6),
    updated_at        datetime(6),
    finished_at       datetime(6),
    PRIMARY KEY (application_name, location, table_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
