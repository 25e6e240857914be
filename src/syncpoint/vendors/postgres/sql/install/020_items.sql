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
-- status lists recent DDL events without scanning the queue.
CREATE INDEX IF NOT EXISTS ${items_ddl} ON ${schema}.${items} (repl_key)
    WHERE db_action IN ('CREATE', 'ALTER', 'DROP', 'TRUNCATE')
