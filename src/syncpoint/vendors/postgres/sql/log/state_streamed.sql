-- The end LSN of the last source transaction stored by this transaction (the streaming
-- reader's), and when capture last moved: the slot is told only after the commit.
UPDATE ${schema}.${log_state} SET decoded = %(lsn)s::pg_lsn, advanced_at = clock_timestamp()
