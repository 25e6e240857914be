-- columns.sql for many target tables in one round trip: each row led by the name asked
-- for (%s, an array of qualified names); a table that does not exist gives no row.
SELECT w.name, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
       (SELECT k.n FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(att, n)
         WHERE k.att = a.attnum)
FROM unnest(%s::text[]) AS w(name)
JOIN pg_attribute a ON a.attrelid = to_regclass(w.name) AND a.attnum > 0
  AND NOT a.attisdropped
LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
ORDER BY w.name, a.attnum
