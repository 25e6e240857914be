-- One window's typed staging for one round (the direct path from PostgreSQL or MariaDB):
-- its net operations with the target's column values already in the target's own column
-- types (every one nullable: a delete carries its key columns only). Loaded and committed
-- by the copy tasks, read by the apply transaction and dropped after its commit (a DROP would
-- commit the apply's transaction in MariaDB); one a round, so a crash before the commit
-- leaves a table no later round reads, dropped after the next round of the sync group.
DROP TABLE IF EXISTS $raw{staging}
---
CREATE TABLE $raw{staging} (
    sp_repl_key bigint NOT NULL,
    sp_sub      smallint NOT NULL,
    sp_action   char(1) CHARACTER SET ascii NOT NULL,
    sp_keyless  tinyint NOT NULL,
    sp_records  bigint NOT NULL
    $raw{columns}
    $raw{index}
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
