 WHEN EXISTS (SELECT 1 FROM ${table} AS sp_row WHERE $raw{conflict})
