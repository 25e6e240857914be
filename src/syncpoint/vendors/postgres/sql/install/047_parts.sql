-- Where DDL is polled (no event trigger at ddl_command_start): the partitions of the watched
-- tables as a tick last saw them, so that one dropped since is noticed (a DROP writes no
-- row change, neither a trigger record nor a log record). empty: no row was in it as of
-- snapshot snap, so that any row it held when dropped was written by a transaction snap
-- does not see; bound: its partition constraint (a row written since is in it only if it
-- satisfies that); gone_at (log capture): the WAL position when it was first found gone,
-- which a tick's drain must pass before the partition may be taken for empty. See
-- install/117_fn_parts.sql.
CREATE TABLE IF NOT EXISTS ${schema}.${parts} (
    tid     integer     NOT NULL,
    relid   oid         NOT NULL,
    name    text        NOT NULL,
    empty   boolean     NOT NULL,
    snap    pg_snapshot NOT NULL,
    bound   text,
    gone_at pg_lsn,
    CONSTRAINT ${parts_pkey} PRIMARY KEY (tid, relid)
)
