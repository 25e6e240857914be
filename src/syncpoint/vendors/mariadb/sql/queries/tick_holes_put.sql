INSERT INTO ${tick_holes} (lo, hi, since) VALUES (%s, %s, %s)
