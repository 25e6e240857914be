UPDATE ${schema}.${log_state} SET advanced_at = clock_timestamp()
