-- A target table created for a snapshot: its indexes and foreign keys wait for the load.
INSERT IGNORE INTO ${created} (table_name, location) VALUES (%s, %s)
