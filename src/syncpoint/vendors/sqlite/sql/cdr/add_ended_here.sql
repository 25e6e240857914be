-- Where a delete ended without being passed on, where cdr add ran before it was kept
-- (NULL: passed on, the safe reading: purge then waits for every site to hold it).
ALTER TABLE ${tombstones} ADD COLUMN ended_here TEXT
