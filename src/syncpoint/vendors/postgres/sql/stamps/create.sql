-- The receive stamps of one integrate location for one channel (docs/objects.md).
CREATE TABLE IF NOT EXISTS ${stin} (
    leader_cap_loc         text,
    leader_cap_begin       timestamptz,
    leader_cap_begin_int   bigint,
    trailer_cap_loc        text,
    trailer_cap_begin      timestamptz,
    trailer_cap_begin_int  bigint,
    updated_at             timestamptz NOT NULL DEFAULT clock_timestamp()
)
---
-- Each capture location's stamp behind the leader and trailer.
CREATE TABLE IF NOT EXISTS ${detail} (
    channel        text NOT NULL,
    integrate_loc  text NOT NULL,
    capture_loc    text NOT NULL,
    cap_begin      timestamptz,
    cap_begin_int  bigint,
    context        bigint,
    updated_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (channel, integrate_loc, capture_loc)
)
