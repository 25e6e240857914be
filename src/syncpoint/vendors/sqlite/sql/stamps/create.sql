-- The receive stamps of one integrate location for one channel (docs/objects.md). Times are UTC text.
CREATE TABLE IF NOT EXISTS ${stin} (
    leader_cap_loc         TEXT,
    leader_cap_begin       TEXT,
    leader_cap_begin_int   INTEGER,
    trailer_cap_loc        TEXT,
    trailer_cap_begin      TEXT,
    trailer_cap_begin_int  INTEGER,
    updated_at             TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
)
---
-- Each capture location's stamp behind the leader and trailer.
CREATE TABLE IF NOT EXISTS ${detail} (
    channel        TEXT NOT NULL,
    integrate_loc  TEXT NOT NULL,
    capture_loc    TEXT NOT NULL,
    cap_begin      TEXT,
    cap_begin_int  INTEGER,
    context        INTEGER,
    updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
    PRIMARY KEY (channel, integrate_loc, capture_loc)
)
