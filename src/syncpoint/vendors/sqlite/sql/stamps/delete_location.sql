DELETE FROM ${detail} WHERE channel = ? AND integrate_loc = ? AND capture_loc = ?
