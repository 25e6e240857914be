-- A target table created for a snapshot: its indexes and foreign keys wait for the load.
INSERT INTO ${created} (table_name, location) VALUES (%s, %s) ON CONFLICT (table_name) DO NOTHING
