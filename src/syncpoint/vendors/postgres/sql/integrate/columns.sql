-- Columns of a target table in order: name, type as format_type writes it, nullable, key
-- position (1-based: indkey is an int2vector, whose subscripts start at 0).
SELECT a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
       (SELECT k.n FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(att, n)
         WHERE k.att = a.attnum)
FROM pg_attribute a
LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
WHERE a.attrelid = to_regclass(%s) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
