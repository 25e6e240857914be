-- unique_indexes.sql for many target tables in one round trip: each row led by the name
-- asked for (%s, an array of qualified names).
SELECT w.name, i.indexrelid::regclass::text, a.attname
FROM unnest(%s::text[]) AS w(name)
JOIN pg_index i ON i.indrelid = to_regclass(w.name)
CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE i.indisunique AND i.indimmediate AND i.indpred IS NULL AND i.indexprs IS NULL
ORDER BY 1, 2, k.n
