-- A relation's kind (with 'i' appended when it takes part in inheritance or partitioning)
-- and columns (name, declared type, nullable, position in the primary key); no row when it
-- does not exist, one row with a NULL name when it has no column.
SELECT c.relkind::text || CASE WHEN EXISTS (SELECT 1 FROM pg_inherits
                                             WHERE inhrelid = c.oid OR inhparent = c.oid)
                              THEN 'i' ELSE '' END,
       a.attname::text, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
       (SELECT k.ord
          FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         WHERE i.indrelid = c.oid AND i.indisprimary AND k.attnum = a.attnum)
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE n.nspname = %(schema)s AND c.relname = %(table)s
 ORDER BY a.attnum
