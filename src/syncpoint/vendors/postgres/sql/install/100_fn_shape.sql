-- A table's shape, the content of DDL records: {"schema", "table", "columns": [{name, type,
-- nullable, pk}]} with pk the 1-based position in the primary key (queries/describe.sql
-- reads the same catalog the same way for Python). Conflict bookkeeping columns (cdr add) are
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
                   ORDER BY a.attnum)
              FROM pg_attribute a
             WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
               AND NOT starts_with(a.attname::text, $lit{cdr_mark})), '[]'::jsonb))
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = p_rel
$fn$
