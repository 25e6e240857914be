"""SQLite 3.35+ (the standard sqlite3 module)."""
