INSERT INTO ${cols_snapshot} (tablename, cid, name, type, "notnull", pk) VALUES (?, ?, ?, ?, ?, ?)
