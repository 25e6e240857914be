-- The decoder's state, locked: one drain batch at a time writes it.
SELECT slot, decoded, started, horizon, advanced_at, lost FROM ${schema}.${log_state} FOR UPDATE
