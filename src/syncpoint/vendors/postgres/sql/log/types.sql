-- A column type's declared text and, through its domains, its base type's oid, kind and
-- category (how the trigger capture's projection treats it). The declared text is the
-- one the shapes hold (install/100_fn_shape.sql, under search_path pg_catalog): a type
-- outside pg_catalog keeps its schema, whatever this session's search_path makes visible
-- (else Pagila's public.year would look like another type, "year", to the decoder).
WITH RECURSIVE d(o, base, typtype, cat, depth) AS (
    SELECT t.oid, t.oid, t.typtype, t.typcategory, 0 FROM pg_type t WHERE t.oid = %(oid)s
    UNION ALL
    SELECT d.o, b.oid, b.typtype, b.typcategory, d.depth + 1
      FROM d JOIN pg_type t ON t.oid = d.base JOIN pg_type b ON b.oid = t.typbasetype
     WHERE d.typtype = 'd'
), named AS (
    SELECT format_type(%(oid)s, %(mod)s) AS text, n.nspname
      FROM pg_type t
      LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
      JOIN pg_namespace n ON n.oid = coalesce(e.typnamespace, t.typnamespace)
     WHERE t.oid = %(oid)s
)
SELECT CASE WHEN named.nspname = 'pg_catalog'
              OR starts_with(named.text, quote_ident(named.nspname) || '.')
            THEN named.text ELSE quote_ident(named.nspname) || '.' || named.text END,
       base::regtype::text, typtype::text, cat::text
  FROM d, named ORDER BY depth DESC LIMIT 1
