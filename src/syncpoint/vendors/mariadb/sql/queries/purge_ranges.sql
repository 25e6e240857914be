-- The ranges of the ticks purged (their records are gone), by primary key: the statement
-- never waits on a tick's uncommitted range.
SELECT lo, stamped FROM ${tick_ranges} WHERE tick_id <= %(upto)s
