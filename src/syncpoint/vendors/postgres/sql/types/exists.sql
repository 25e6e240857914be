-- The type named (qualified, quoted) if it exists here, else NULL; and its labels when
-- it is an enum.
SELECT to_regtype(%s)::oid,
       coalesce((SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e
                  WHERE e.enumtypid = to_regtype(%s)::oid), '{}')
