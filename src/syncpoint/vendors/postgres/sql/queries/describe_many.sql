-- describe.sql for many relations in one round trip: the same rows, each led by the
-- schema and name asked for (%(schemas)s and %(tables)s, paired by position); a relation
-- that does not exist gives no row.
SELECT w.s, w.t,
       c.relkind::text || CASE WHEN EXISTS (SELECT 1 FROM pg_inherits
                                             WHERE inhrelid = c.oid OR inhparent = c.oid)
                              THEN 'i' ELSE '' END,
       a.attname::text, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
       (SELECT k.ord
          FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         WHERE i.indrelid = c.oid AND i.indisprimary AND k.attnum = a.attnum)
  FROM unnest(%(schemas)s::text[], %(tables)s::text[]) AS w(s, t)
  JOIN pg_namespace n ON n.nspname = w.s
  JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = w.t
  LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY w.s, w.t, a.attnum
