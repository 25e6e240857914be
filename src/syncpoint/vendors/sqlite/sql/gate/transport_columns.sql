-- Columns of a transport table: name, declared type, nullable, position in the key.
SELECT name, type, "notnull" = 0, NULLIF(pk, 0)
FROM pragma_table_info(?, ?)
ORDER BY cid
