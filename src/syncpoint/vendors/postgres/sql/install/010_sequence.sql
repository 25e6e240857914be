-- The change queue's key. CACHE 1: with a cache, each session takes its own block of
-- values and keys are not even in allocation order across sessions (docs/internals.md, "Capture on PostgreSQL");
-- NO CYCLE: a key is never handed out twice, also after purge.
CREATE SEQUENCE IF NOT EXISTS ${schema}.${seq} AS bigint CACHE 1 NO CYCLE
