-- A table's shape, the content of DDL records: {"schema", "table", "columns": [{name, type,
-- nullable, pk}]} with pk the 1-based position in the primary key (queries/describe.sql
-- reads the same catalog the same way for Python), and a column of an enum type (or an
-- array of one) its labels in their order: a label renamed (ALTER TYPE ... RENAME VALUE)
-- changes the value of every row holding it, with no row record. Conflict bookkeeping columns (cdr add) are
-- syncpoint's, not the table's shape: adding or dropping them is no schema change.
CREATE OR REPLACE FUNCTION ${schema}.${fn_shape}(p_rel oid) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
    SELECT jsonb_build_object(
        'schema', n.nspname,
        'table', c.relname,
        'columns', coalesce((
            SELECT jsonb_agg(jsonb_build_object(
                       'name', a.attname,
                       'type', format_type(a.atttypid, a.atttypmod),
                       'nullable', NOT a.attnotnull,
                       'pk', (SELECT k.ord
                                FROM pg_index i,
                                     unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
                               WHERE i.indrelid = c.oid AND i.indisprimary
                                 AND k.attnum = a.attnum))
                   || coalesce((SELECT jsonb_build_object('labels', jsonb_agg(
                                           e.enumlabel::text ORDER BY e.enumsortorder))
                                  FROM pg_type ty
                                  JOIN pg_enum e ON e.enumtypid IN (ty.oid, ty.typelem)
                                 WHERE ty.oid = a.atttypid
                                HAVING count(*) > 0), '{}'::jsonb)
                   ORDER BY a.attnum)
              FROM pg_attribute a
             WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
               AND NOT starts_with(a.attname::text, $lit{cdr_mark})), '[]'::jsonb))
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = p_rel
$fn$
---
-- An ALTER record's content: the new shape (fn_shape's) with "filled": true on each column
-- the old shape lacks whose rows already hold a value no row record carries: added with a
-- default (PostgreSQL wrote it into every row, or keeps it as the rows' missing value), as
-- an identity or a generated column. The table's stored shape stays fn_shape's: a default
-- set or dropped later is no change of shape.
CREATE OR REPLACE FUNCTION ${schema}.${fn_added}(p_rel oid, p_new jsonb, p_old jsonb)
RETURNS jsonb
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
    SELECT jsonb_set(p_new, '{columns}', coalesce((
        SELECT jsonb_agg(CASE
                   WHEN NOT EXISTS (SELECT 1 FROM jsonb_array_elements(p_old -> 'columns') o
                                     WHERE o ->> 'name' = c ->> 'name')
                    AND EXISTS (SELECT 1 FROM pg_attribute a
                                 WHERE a.attrelid = p_rel AND a.attname = c ->> 'name'
                                   AND NOT a.attisdropped
                                   AND (a.atthasdef OR a.atthasmissing OR a.attidentity <> ''
                                        OR a.attgenerated <> ''))
                   THEN c || '{"filled": true}'::jsonb ELSE c END ORDER BY x.n)
          FROM jsonb_array_elements(p_new -> 'columns') WITH ORDINALITY AS x(c, n)), '[]'))
$fn$
