-- The change queue. One row per captured change; no per-row stamping of positions: a
-- record belongs to the tick whose snapshot first sees its transaction (see capture.py).
-- guid is '<stream_id>:<repl_key>', unique across locations and reinstalls.
-- repl_key is unique by its sequence (CACHE 1, NO CYCLE; check() flags a reset). The
-- primary key leads with what readers filter on (one table, a range of transactions): one
-- index serves both, where a key on repl_key alone plus a reader index would cost every
-- captured change a second index insert.
CREATE TABLE IF NOT EXISTS ${schema}.${items} (
    repl_key    bigint      NOT NULL DEFAULT nextval($lit{seq_q}::regclass),
    context     bigint,
    trans_key   xid8        NOT NULL,
    dbid        text        NOT NULL,
    tablename   text        NOT NULL,
    db_catalog  text        NOT NULL,
    db_schema   text        NOT NULL,
    guid        text        NOT NULL,
    db_action   text        NOT NULL,
    content     text,
    oldcontent  text,
    version     integer     NOT NULL,
    captured_at timestamptz NOT NULL,
    CONSTRAINT ${items_pkey} PRIMARY KEY (tablename, trans_key, repl_key)
)
---
-- The DDL records of the queue listed once more, for status to show recent DDL without
-- scanning the queue: a partial index of the queue would do it too, but would cost every
-- captured change the check of its predicate (a few microseconds a statement). Written
-- beside each DDL record, purged with it.
CREATE TABLE IF NOT EXISTS ${schema}.${ddl_log} (
    repl_key    bigint      NOT NULL,
    trans_key   xid8        NOT NULL,
    db_action   text        NOT NULL,
    db_schema   text        NOT NULL,
    tablename   text        NOT NULL,
    version     integer     NOT NULL,
    captured_at timestamptz NOT NULL,
    CONSTRAINT ${ddl_log_pkey} PRIMARY KEY (repl_key)
)
---
-- An install made before the log had that partial index: its DDL records move to the log.
DO $do$
BEGIN
    IF to_regclass($lit{items_ddl_q}) IS NOT NULL THEN
        INSERT INTO ${schema}.${ddl_log} (repl_key, trans_key, db_action, db_schema, tablename,
                                          version, captured_at)
        SELECT repl_key, trans_key, db_action, db_schema, tablename, version, captured_at
          FROM ${schema}.${items}
         WHERE db_action IN ('CREATE', 'ALTER', 'DROP', 'TRUNCATE')
        ON CONFLICT DO NOTHING;
        DROP INDEX ${schema}.${items_ddl};
    END IF;
END
$do$
