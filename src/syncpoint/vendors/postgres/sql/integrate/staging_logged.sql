-- Whether the staging table was made logged (before it was made unlogged).
SELECT c.relpersistence = 'p' FROM pg_class c WHERE c.oid = to_regclass(%s)
