-- Rows of given keys (verify --repair): the row as the capture writes it.
SELECT $raw{content} AS content$raw{extra} FROM $raw{table} sp_row WHERE $raw{match}
