-- The types of one's own a table's columns need (enums, domains, composite types), found
-- through arrays, domain bases and composite attributes; those a definition needs come
-- first (deepest first). A table's own row type is not one of them.
WITH RECURSIVE need(oid, depth) AS (
    SELECT a.atttypid, 0
      FROM pg_attribute a
     WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
    UNION
    SELECT d.dep, need.depth + 1
      FROM need
      JOIN pg_type t ON t.oid = need.oid
     CROSS JOIN LATERAL (
        SELECT t.typelem AS dep WHERE t.typelem <> 0 AND t.typcategory = 'A'
        UNION ALL
        SELECT t.typbasetype WHERE t.typtype = 'd'
        UNION ALL
        SELECT a.atttypid FROM pg_attribute a
         WHERE t.typtype = 'c' AND a.attrelid = t.typrelid AND a.attnum > 0
           AND NOT a.attisdropped
     ) d
     WHERE need.depth < 16
)
SELECT t.oid, n.nspname, t.typname, t.typtype
  FROM need
  JOIN pg_type t ON t.oid = need.oid
  JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE t.typtype IN ('e', 'd', 'c')
   AND n.nspname NOT IN ('pg_catalog', 'information_schema')
   AND (t.typtype <> 'c' OR (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')
 GROUP BY t.oid, n.nspname, t.typname, t.typtype
 ORDER BY max(need.depth) DESC, n.nspname, t.typname
