-- A queue whose ticks stamped every record, when its range table is made: one range per tick
-- (from its lowest to its highest key; the records in it with that context are the tick's).
INSERT INTO ${tick_ranges} (lo, hi, tick_id, stamped)
SELECT MIN(repl_key), MAX(repl_key), context, 1 FROM ${items} FORCE INDEX (by_context)
 WHERE context IS NOT NULL GROUP BY context
