-- The key of the first row of the table (by key order), as captured content encodes it.
SELECT $raw{row} FROM ${table} AS src ORDER BY $raw{order} LIMIT 1
