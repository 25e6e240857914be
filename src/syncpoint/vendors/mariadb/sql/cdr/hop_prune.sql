-- The oldest moves of a stamp beyond the newest ones kept: bounds from them could only be
-- later (never earlier) from the moves that remain.
DELETE FROM ${hops} WHERE capture_loc = %(loc)s AND cap_begin < %(oldest)s
