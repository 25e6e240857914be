SELECT to_regclass(%(state)s) IS NOT NULL
