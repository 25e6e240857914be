DELETE FROM sqlite_sequence WHERE name = ?
