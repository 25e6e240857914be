SELECT to_regclass(%s)::text
