-- Tick 0 at a fresh install: the start of the stream, the window (0, 1] opens here.
INSERT INTO ${schema}.${ticks} (tick_id, snapshot, made_at, guaranteed)
SELECT 0, pg_current_snapshot(), clock_timestamp(), clock_timestamp()
 WHERE NOT EXISTS (SELECT 1 FROM ${schema}.${ticks})
