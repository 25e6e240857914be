-- Its own transaction, that wrote nothing before (the server refuses otherwise); it waits
-- for the transactions running now to end, to start at a consistent point.
SELECT lsn::text FROM pg_create_logical_replication_slot(%(slot)s, 'pgoutput')
