-- By primary key only, so the statement never waits on uncommitted records (a DELETE has no
-- semi-consistent read: a scan would wait on every uncommitted record it passes, and the
-- optimizer scans small tables even for an IN list; index hints do not bind a DELETE).
-- The keys drive the join: STRAIGHT_JOIN reads them first, then each record by its key.
DELETE i FROM ($raw{keys}) k STRAIGHT_JOIN ${items} i ON i.repl_key = k.rk
---
DELETE d FROM ($raw{keys}) k STRAIGHT_JOIN ${debug_table} d ON d.repl_key = k.rk
