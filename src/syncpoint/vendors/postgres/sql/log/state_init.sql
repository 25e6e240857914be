INSERT INTO ${schema}.${log_state} (slot) VALUES (%(slot)s) ON CONFLICT (one) DO NOTHING
