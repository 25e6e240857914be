INSERT OR IGNORE INTO ${pow2} (lo, k, v1, v2) VALUES (?, ?, ?, ?)
