-- Tables of the current schema (where the control tables are made); the caller keeps those
-- of its prefix.
SELECT c.relname
  FROM pg_catalog.pg_class c
 WHERE c.relnamespace = pg_catalog.current_schema()::regnamespace
   AND c.relkind IN ('r', 'p')
