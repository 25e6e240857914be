SELECT capture_loc, cap_begin, context FROM ${detail}
WHERE channel = %s AND integrate_loc = %s
