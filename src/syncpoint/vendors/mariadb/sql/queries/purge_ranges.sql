-- The ranges of the ticks purged.
SELECT lo, hi, tick_id, stamped FROM ${tick_ranges} WHERE tick_id <= %(upto)s ORDER BY lo
