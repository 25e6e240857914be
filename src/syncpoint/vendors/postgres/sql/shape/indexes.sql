-- Indexes of a table other than its primary key: name, unique, plain columns in order
-- (NULL entries for expressions), whether partial or on expressions, the access method
-- (btree, gist, gin, ...), and per column its operator class where it is not the type's
-- default for the method (NULL where it is).
SELECT i.relname, x.indisunique,
       array_agg(a.attname::text ORDER BY k.ord),
       x.indpred IS NOT NULL OR x.indexprs IS NOT NULL,
       am.amname::text,
       array_agg(CASE WHEN oc.opcdefault THEN NULL ELSE oc.opcname::text END ORDER BY k.ord)
  FROM pg_index x
  JOIN pg_class i ON i.oid = x.indexrelid
  JOIN pg_am am ON am.oid = i.relam
 CROSS JOIN LATERAL unnest(x.indkey::smallint[]) WITH ORDINALITY AS k(attnum, ord)
  LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
  LEFT JOIN pg_opclass oc ON oc.oid = x.indclass[k.ord - 1]
 WHERE x.indrelid = %s::regclass AND NOT x.indisprimary
   AND k.ord <= x.indnkeyatts
 GROUP BY i.relname, x.indisunique, x.indpred, x.indexprs, am.amname
 ORDER BY i.relname
