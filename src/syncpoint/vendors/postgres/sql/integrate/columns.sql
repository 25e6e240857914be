-- Columns of a target table in order: name, type as format_type writes it, nullable, key.
SELECT a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
       array_position(i.indkey::int2[], a.attnum)
FROM pg_attribute a
LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
WHERE a.attrelid = to_regclass(%s) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum
