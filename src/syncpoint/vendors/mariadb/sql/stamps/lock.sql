-- Stamps of one channel and integrate location are written by one run at a time: lock the
-- detail rows of this channel and location (InnoDB next-key locks cover absent rows too).
SELECT capture_loc FROM ${detail} WHERE channel = %s AND integrate_loc = %s FOR UPDATE
