INSERT INTO ${tick_ranges} (lo, hi, tick_id) VALUES (%s, %s, %s)
