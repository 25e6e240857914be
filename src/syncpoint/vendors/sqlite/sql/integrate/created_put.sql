-- A target table created for a snapshot: its indexes and foreign keys wait for the load.
INSERT OR IGNORE INTO ${created} (table_name, location) VALUES (?, ?)
