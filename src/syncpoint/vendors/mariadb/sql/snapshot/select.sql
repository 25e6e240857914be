-- One chunk of a table's rows for Spark: the partition value and the row as the capture
-- writes it (content). A plain read: writers are never blocked.
SELECT $raw{part} AS sp_part, $raw{content} AS content$raw{extra}
FROM $raw{table} sp_row
WHERE $raw{range}
