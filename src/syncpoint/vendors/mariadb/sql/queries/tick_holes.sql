-- The holes a tick looks into. The first consistent read of a tick: its snapshot is taken
-- here, after the ticker lock and the list of open transactions.
SELECT lo, hi, since FROM ${tick_holes} ORDER BY lo
