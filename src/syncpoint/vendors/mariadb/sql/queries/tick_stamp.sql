-- Stamp by primary key only, so the statement never waits on another transaction's
-- uncommitted records: FORCE INDEX keeps the optimizer from scanning the table (a locking
-- scan would wait on every uncommitted record it passes), and chunks stay small enough for
-- the range optimizer to plan one point range per key.
UPDATE ${items} FORCE INDEX (PRIMARY) SET context = %s WHERE repl_key IN ($raw{keys})
