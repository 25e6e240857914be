-- A column type's declared text and, through its domains, its base type's oid, kind and
-- category (how the trigger capture's projection treats it).
WITH RECURSIVE d(o, base, typtype, cat, depth) AS (
    SELECT t.oid, t.oid, t.typtype, t.typcategory, 0 FROM pg_type t WHERE t.oid = %(oid)s
    UNION ALL
    SELECT d.o, b.oid, b.typtype, b.typcategory, d.depth + 1
      FROM d JOIN pg_type t ON t.oid = d.base JOIN pg_type b ON b.oid = t.typbasetype
     WHERE d.typtype = 'd'
)
SELECT format_type(%(oid)s, %(mod)s), base::regtype::text, typtype::text, cat::text
  FROM d ORDER BY depth DESC LIMIT 1
