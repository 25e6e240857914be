-- The conflict bookkeeping of a location (made by cdr add, kept until the last cdr remove):
-- the tables under conflict resolution, their deleted keys, the conflicts decided here.
CREATE TABLE IF NOT EXISTS ${cdr} (
    table_name  VARCHAR(255) NOT NULL PRIMARY KEY,
    resolution  VARCHAR(16) NOT NULL,
    `groups`    LONGTEXT NOT NULL,
    `key`       LONGTEXT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
---
-- A deleted key per incarnation: the key version it had and the delete's version
-- (time|location), so a late update of that incarnation is resolved against the delete;
-- deleted_at in UTC, when this site wrote it (purge compares it with receive stamps);
-- the row this site deleted, when it had one of that incarnation (each value in base64),
-- made again if a change of the incarnation beats the delete.
-- ended_here: the version of a delete this site applied and did not pass on (its row won
-- against it, or a newer incarnation was here), while it is the tombstone's version: the
-- sites after this one on that delete's way never get it, and purge does not wait for them.
CREATE TABLE IF NOT EXISTS ${tombstones} (
    table_name  VARCHAR(255) NOT NULL,
    `key`       VARCHAR(400) NOT NULL,
    kv          BIGINT NOT NULL,
    version     VARCHAR(64) NOT NULL,
    deleted_at  DATETIME(6) NOT NULL,
    deleted_row LONGTEXT NULL,
    ended_here  VARCHAR(64) NULL,
    PRIMARY KEY (table_name, `key`, kv)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
---
CREATE TABLE IF NOT EXISTS ${conflicts} (
    id              BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    table_name      VARCHAR(255) NOT NULL,
    `key`           LONGTEXT NOT NULL,
    column_group    VARCHAR(64) NOT NULL,
    local_row       LONGTEXT,
    local_version   VARCHAR(64),
    remote_row      LONGTEXT,
    remote_version  VARCHAR(64),
    resolution      VARCHAR(16) NOT NULL,
    winner          VARCHAR(8) NOT NULL,
    decided_at      DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
---
-- When each receive stamp of this location moved (the stamp, and this location's clock at
-- the move): everything the capture location captured before the stamp was here by then,
-- and so captured here for the next site of a ring. Purge bounds tombstones with it.
CREATE TABLE IF NOT EXISTS ${hops} (
    capture_loc  VARCHAR(255) NOT NULL,
    cap_begin    DATETIME(6) NOT NULL,
    recorded_at  DATETIME(6) NOT NULL,
    PRIMARY KEY (capture_loc, cap_begin)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
