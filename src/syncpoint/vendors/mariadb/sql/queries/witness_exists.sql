SELECT COUNT(*) FROM ${table} AS src WHERE $raw{where}
