-- A target table's columns as a round's typed staging declares them: the type without its
-- modifier (the apply's cast applies it, as it did to the JSON text), and whether the type
-- is one of PostgreSQL's own base types (a type made in the database, such as an enum
-- whose labels the round may add first, is staged as text and cast in the apply).
SELECT a.attname, format_type(a.atttypid, -1),
       t.typnamespace = 'pg_catalog'::regnamespace AND t.typtype = 'b'
  FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
 WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
