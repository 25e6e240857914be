SELECT * FROM ${cols_view} ORDER BY schemaname, tablename, ordinal
