-- Tables the channel file no longer lists.
DELETE FROM ${schema}.${tables} t
 WHERE NOT EXISTS (SELECT 1
                     FROM unnest(%(schemas)s::text[], %(names)s::text[]) AS c(s, n)
                    WHERE c.s = t.schemaname AND c.n = t.tablename)
---
DELETE FROM ${schema}.${log_tables} l
 WHERE NOT EXISTS (SELECT 1 FROM ${schema}.${tables} t WHERE t.id = l.id)
