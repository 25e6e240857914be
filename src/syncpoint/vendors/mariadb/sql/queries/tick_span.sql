-- The committed records above max_key not in a tick, from the tick's snapshot (a consistent
-- read of the context index only: no record is read, locked or waited on). Their keys are
-- usually one run: then lowest + count - 1 = highest, and no run needs finding.
SELECT MIN(repl_key), MAX(repl_key), COUNT(*) FROM ${items} FORCE INDEX (by_context)
 WHERE context IS NULL AND repl_key > %(after)s
