SELECT table_name, resolution, groups, key FROM ${cdr} ORDER BY table_name
