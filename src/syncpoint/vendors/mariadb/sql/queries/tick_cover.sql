INSERT INTO ${tick_ranges} (lo, hi, tick_id, stamped) VALUES (%s, %s, %s, %s)
