DELETE FROM ${detail} WHERE channel = %s AND integrate_loc = %s AND capture_loc = %s
