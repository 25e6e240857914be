-- Control tables of an integrate location (docs/objects.md); idempotent. Names are compared in
-- binary collation so that table names differing only in case stay apart.
CREATE TABLE IF NOT EXISTS ${positions} (
    application_name  varchar(64) NOT NULL,
    location          varchar(64) NOT NULL,
    table_name        varchar(512) NOT NULL,
    context           bigint NOT NULL,
    stream_id         varchar(128) NOT NULL,
    updated_at        datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (application_name, location, table_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
---
CREATE TABLE IF NOT EXISTS ${sync_points} (
    application_name  varchar(64) NOT NULL,
    location          varchar(64) NOT NULL,
    sync_name         varchar(512) NOT NULL,
    context           bigint NOT NULL,
    stream_id         varchar(128) NOT NULL,
    sampled_at        datetime(6),
    guaranteed_at     datetime(6),
    PRIMARY KEY (application_name, location, sync_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
---
CREATE TABLE IF NOT EXISTS ${stops} (
    application_name  varchar(64) NOT NULL,
    location          varchar(64) NOT NULL,
    table_name        varchar(512) NOT NULL,
    sync_name         varchar(512) NOT NULL,
    context           bigint,
    repl_key          bigint,
    reason            text NOT NULL,
    stopped_at        datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (application_name, location, table_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
---
CREATE TABLE IF NOT EXISTS ${staging} (
    application_name  varchar(64) NOT NULL,
    sync_name         varchar(512) NOT NULL,
    round_id          varchar(64) NOT NULL,
    tbl               int NOT NULL,
    action            varchar(1) NOT NULL,
    content           longtext,
    repl_key          bigint NOT NULL,
    origin            varchar(64),
    KEY ${staging_idx} (round_id, tbl, action)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
---
-- Target tables syncpoint created for a snapshot whose indexes and foreign keys wait for
-- the load (a snapshot that failed and runs again adds them all the same).
CREATE TABLE IF NOT EXISTS ${created} (
    table_name        varchar(512) NOT NULL PRIMARY KEY,
    location          varchar(64) NOT NULL,
    created_at        datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
