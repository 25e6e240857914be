UPDATE ${schema}.${log_state} SET decoded = %(lsn)s::pg_lsn
