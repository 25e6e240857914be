INSERT INTO ${origin} (dbid) VALUES (?)
