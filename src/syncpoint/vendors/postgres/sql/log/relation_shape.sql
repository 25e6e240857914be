-- The shape of a relation as a decoded relation message shows it (names and declared types
-- in the message's order), with nullability and primary key position from the catalog, in
-- the form fn_shape writes (install/100_fn_shape.sql).
SELECT jsonb_build_object(
           'schema', %(schema)s::text,
           'table', %(table)s::text,
           'columns', coalesce(jsonb_agg(jsonb_build_object(
               'name', c.n,
               'type', c.t,
               'nullable', coalesce(NOT a.attnotnull, true),
               'pk', (SELECT k.ord
                        FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
                       WHERE i.indrelid = %(relid)s::oid AND i.indisprimary
                         AND k.attnum = a.attnum))
               ORDER BY c.o), '[]'::jsonb))::text
  FROM unnest(%(names)s::text[], %(types)s::text[]) WITH ORDINALITY AS c(n, t, o)
  LEFT JOIN pg_attribute a
    ON a.attrelid = %(relid)s::oid AND a.attname = c.n AND NOT a.attisdropped
