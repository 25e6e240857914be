SELECT to_regclass(%(service)s) IS NOT NULL AND to_regclass(%(items)s) IS NOT NULL
