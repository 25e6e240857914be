-- A receive stamp that moved, with the time here (in the stamps' transaction: the data it
-- covers committed before). A stamp not past the newest recorded one adds nothing.
INSERT INTO ${hops} (capture_loc, cap_begin, recorded_at)
SELECT %(loc)s, %(stamp)s, clock_timestamp()
WHERE NOT EXISTS (SELECT 1 FROM ${hops} h
                   WHERE h.capture_loc = %(loc)s AND h.cap_begin >= %(stamp)s)
