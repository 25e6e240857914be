-- Columns of a transport table: name, type as DDL spells it, nullable, position in the key.
SELECT a.attname,
       format_type(a.atttypid, a.atttypmod),
       NOT a.attnotnull,
       (SELECT k.ord
          FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         WHERE i.indrelid = c.oid AND i.indisprimary AND k.attnum = a.attnum)
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = COALESCE(%s, current_schema())
  AND c.relname = %s
  AND c.relkind IN ('r', 'p')
  AND a.attnum > 0
  AND NOT a.attisdropped
ORDER BY a.attnum
