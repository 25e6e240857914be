-- An ALTER record's content from a relation message's shape: the columns added since the
-- last shape marked where their rows already hold a value (install/100_fn_shape.sql).
SELECT ${schema}.${fn_added}(%(relid)s::oid, %(new)s::jsonb, %(old)s::jsonb)::text
