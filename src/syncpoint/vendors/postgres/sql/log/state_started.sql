-- A new slot: decoding starts at its position; lost (a previous slot's reason) is cleared.
UPDATE ${schema}.${log_state}
   SET slot = %(slot)s, started = %(lsn)s::pg_lsn, decoded = %(lsn)s::pg_lsn, lost = NULL,
       advanced_at = clock_timestamp()
