SELECT slot, decoded, started, horizon, advanced_at, lost FROM ${schema}.${log_state}
