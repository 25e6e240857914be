-- The change queue. One row per captured change; no per-row stamping of positions: a
-- record belongs to the tick whose snapshot first sees its transaction (see capture.py).
-- guid is '<stream_id>:<repl_key>', unique across locations and reinstalls.
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
    CONSTRAINT ${items_pkey} PRIMARY KEY (repl_key)
)
---
-- Readers take one table's records of a window of transactions.
CREATE INDEX IF NOT EXISTS ${items_read} ON ${schema}.${items} (tablename, trans_key)
---
-- status lists recent DDL events without scanning the queue.
CREATE INDEX IF NOT EXISTS ${items_ddl} ON ${schema}.${items} (repl_key)
    WHERE db_action IN ('CREATE', 'ALTER', 'DROP', 'TRUNCATE')
