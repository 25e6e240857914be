INSERT INTO ${detail} (channel, integrate_loc, capture_loc, cap_begin, cap_begin_int, context)
VALUES (?, ?, ?, ?, ?, ?)
