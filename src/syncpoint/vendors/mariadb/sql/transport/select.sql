-- A transport table in full (the consumer's load of one turn).
SELECT $raw{columns} FROM $raw{table}
