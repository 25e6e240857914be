-- The keys a partition made after install was written under before its statement triggers
-- were in place (while only the row trigger its partitioned table passes on to every new
-- partition covered it, until the next tick found it), with the last row written for each:
-- a TRUNCATE of that partition fires no trigger at all, so when the partition gets its
-- statement triggers, every key here that is no longer in the table becomes a DELETE
-- record (see install/110_fn_make_capture.sql). Empty but for that moment.
CREATE TABLE IF NOT EXISTS ${schema}.${fresh} (
    tid      integer NOT NULL,
    relid    oid     NOT NULL,
    k        jsonb   NOT NULL,
    row_text text NOT NULL,
    CONSTRAINT ${fresh_pkey} PRIMARY KEY (tid, relid, k)
)
