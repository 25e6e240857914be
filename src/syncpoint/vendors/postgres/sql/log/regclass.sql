SELECT %(relid)s::oid::regclass::text
