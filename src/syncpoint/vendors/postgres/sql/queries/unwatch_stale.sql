-- Tables the channel file no longer lists: their triggers and function go, then their row.
SELECT ${schema}.${fn_drop}(t.id)
  FROM ${schema}.${tables} t
 WHERE NOT EXISTS (SELECT 1
                     FROM unnest(%(schemas)s::text[], %(names)s::text[]) AS c(s, n)
                    WHERE c.s = t.schemaname AND c.n = t.tablename)
---
DELETE FROM ${schema}.${tables} t
 WHERE NOT EXISTS (SELECT 1
                     FROM unnest(%(schemas)s::text[], %(names)s::text[]) AS c(s, n)
                    WHERE c.s = t.schemaname AND c.n = t.tablename)
