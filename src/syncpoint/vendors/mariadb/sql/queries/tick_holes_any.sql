-- Whether a log capture tick has holes to judge (else it reads no transaction list). A
-- locking read: it takes no snapshot (the tick's is taken after the list), and only ticks,
-- which hold the ticker lock, write the holes.
SELECT COUNT(*) FROM ${tick_holes} FOR UPDATE
