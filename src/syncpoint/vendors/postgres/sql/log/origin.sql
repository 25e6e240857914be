SELECT ${schema}.${fn_origin}(%(origin)s)
