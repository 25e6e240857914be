SELECT capture_loc, cap_begin, context FROM ${detail}
WHERE channel = ? AND integrate_loc = ?
