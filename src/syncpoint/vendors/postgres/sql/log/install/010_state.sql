-- Log capture's own state, one row: the slot read, the end LSN of the last source
-- transaction whose records are in the queue ("decoded"; written in the same transaction
-- as those records, so a re-read of the slot skips what is at or below it), the slot's
-- start, the last position a tick drained to (horizon), when the slot last moved, and why
-- capture stopped when the slot was lost.
CREATE TABLE IF NOT EXISTS ${schema}.${log_state} (
    one        boolean     NOT NULL DEFAULT true,
    slot       text        NOT NULL,
    decoded    pg_lsn      NOT NULL DEFAULT '0/0',
    started    pg_lsn,
    horizon    pg_lsn,
    advanced_at timestamptz,
    lost       text,
    CONSTRAINT ${log_state_pkey} PRIMARY KEY (one),
    CONSTRAINT ${log_state_one} CHECK (one)
)
---
-- The watched tables as the decoder last saw them: the relation (oid), name, shape version
-- and shape as of the last decoded DDL record, so that rows decoded after a DDL that the
-- event trigger already recorded in the tables table carry the version of their own time.
CREATE TABLE IF NOT EXISTS ${schema}.${log_tables} (
    id         integer     NOT NULL,
    relid      oid,
    schemaname text        NOT NULL,
    tablename  text        NOT NULL,
    version    integer     NOT NULL,
    shape      jsonb,
    CONSTRAINT ${log_tables_pkey} PRIMARY KEY (id)
)
