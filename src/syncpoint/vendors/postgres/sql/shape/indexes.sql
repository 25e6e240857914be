-- Indexes of a table other than its primary key: name, unique, plain columns in order
-- (NULL entries for expressions), whether partial or on expressions.
SELECT i.relname, x.indisunique,
       array_agg(a.attname::text ORDER BY k.ord),
       x.indpred IS NOT NULL OR x.indexprs IS NOT NULL
  FROM pg_index x
  JOIN pg_class i ON i.oid = x.indexrelid
 CROSS JOIN LATERAL unnest(x.indkey::smallint[]) WITH ORDINALITY AS k(attnum, ord)
  LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
 WHERE x.indrelid = %s::regclass AND NOT x.indisprimary
   AND k.ord <= x.indnkeyatts
 GROUP BY i.relname, x.indisunique, x.indpred, x.indexprs
 ORDER BY i.relname
