INSERT OR IGNORE INTO ${pow2} (k, v) VALUES (?, ?)
