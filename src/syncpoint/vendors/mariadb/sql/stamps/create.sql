-- The receive stamps of one integrate location for one channel (docs/objects.md). Times are UTC.
CREATE TABLE IF NOT EXISTS ${stin} (
    leader_cap_loc         varchar(64),
    leader_cap_begin       datetime(6),
    leader_cap_begin_int   bigint,
    trailer_cap_loc        varchar(64),
    trailer_cap_begin      datetime(6),
    trailer_cap_begin_int  bigint,
    updated_at             datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB
---
-- Each capture location's stamp behind the leader and trailer.
CREATE TABLE IF NOT EXISTS ${detail} (
    channel        varchar(64) NOT NULL,
    integrate_loc  varchar(64) NOT NULL,
    capture_loc    varchar(64) NOT NULL,
    cap_begin      datetime(6),
    cap_begin_int  bigint,
    context        bigint,
    updated_at     datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    PRIMARY KEY (channel, integrate_loc, capture_loc)
) ENGINE=InnoDB
