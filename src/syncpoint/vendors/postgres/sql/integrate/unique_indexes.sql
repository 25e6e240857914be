-- Unique indexes of a target table that ON CONFLICT can use (whole columns, no predicate,
-- not deferrable): index name and column names in index order.
SELECT i.indexrelid::regclass::text, a.attname
FROM pg_index i
CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE i.indrelid = to_regclass(%s) AND i.indisunique AND i.indimmediate
  AND i.indpred IS NULL AND i.indexprs IS NULL
ORDER BY 1, k.n
