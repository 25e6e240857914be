-- Every recorded move of this location's receive stamps.
SELECT capture_loc, cap_begin, recorded_at FROM ${hops}
