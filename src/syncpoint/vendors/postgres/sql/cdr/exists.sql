SELECT to_regclass(%(name)s) IS NOT NULL
