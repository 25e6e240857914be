-- One row: the safe horizon (the last tick), the stream's identity, this location's name.
-- guaranteed: the last tick's guaranteed time (see tick()).
CREATE TABLE IF NOT EXISTS ${schema}.${service} (
    one          boolean     NOT NULL DEFAULT true,
    context      bigint      NOT NULL DEFAULT 0,
    stream_id    text        NOT NULL,
    location     text        NOT NULL,
    installed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    ticked_at    timestamptz,
    guaranteed   timestamptz,
    CONSTRAINT ${service_pkey} PRIMARY KEY (one),
    CONSTRAINT ${service_one} CHECK (one)
)
---
-- PgQ-style ticks: a tick keeps the snapshot taken when it was made.
CREATE TABLE IF NOT EXISTS ${schema}.${ticks} (
    tick_id    bigint      NOT NULL,
    snapshot   pg_snapshot NOT NULL,
    made_at    timestamptz NOT NULL,
    guaranteed timestamptz NOT NULL,
    CONSTRAINT ${ticks_pkey} PRIMARY KEY (tick_id)
)
---
CREATE TABLE IF NOT EXISTS ${schema}.${debug} (
    repl_key  bigint,
    line      text        NOT NULL,
    logged_at timestamptz NOT NULL DEFAULT clock_timestamp()
)
