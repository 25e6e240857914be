-- A domain's definition: its base type as SQL, NOT NULL, its default and its CHECK
-- constraints (name, definition) as SQL.
SELECT format_type(t.typbasetype, t.typtypmod), t.typnotnull, pg_get_expr(t.typdefaultbin, 0),
       coalesce((SELECT array_agg(c.conname::text ORDER BY c.conname) FROM pg_constraint c
                  WHERE c.contypid = t.oid AND c.contype = 'c'), '{}'),
       coalesce((SELECT array_agg(pg_get_constraintdef(c.oid) ORDER BY c.conname)
                   FROM pg_constraint c WHERE c.contypid = t.oid AND c.contype = 'c'), '{}')
  FROM pg_type t
 WHERE t.oid = %s
