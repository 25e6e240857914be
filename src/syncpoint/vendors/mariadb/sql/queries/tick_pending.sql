-- Committed records not yet in a tick, read from the tick's snapshot (non-locking).
SELECT repl_key FROM ${items}
 WHERE context IS NULL AND repl_key > %(after)s
 ORDER BY repl_key
 LIMIT $raw{limit}
