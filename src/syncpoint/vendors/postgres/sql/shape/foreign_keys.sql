-- Foreign keys of a table: name, columns, the referenced table (schema, name) and columns.
SELECT c.conname,
       (SELECT array_agg(a.attname::text ORDER BY k.ord)
          FROM unnest(c.conkey) WITH ORDINALITY AS k(n, ord)
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),
       pn.nspname, pc.relname,
       (SELECT array_agg(a.attname::text ORDER BY k.ord)
          FROM unnest(c.confkey) WITH ORDINALITY AS k(n, ord)
          JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n)
  FROM pg_constraint c
  JOIN pg_class pc ON pc.oid = c.confrelid
  JOIN pg_namespace pn ON pn.oid = pc.relnamespace
 WHERE c.conrelid = %s::regclass AND c.contype = 'f'
 ORDER BY c.conname
