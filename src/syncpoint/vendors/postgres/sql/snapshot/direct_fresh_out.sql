-- One key range of a chunk, at the source, for a range the target holds no row of: the
-- target's columns in order, nothing else. A plain read: writers are never blocked.
COPY (SELECT $raw{columns} FROM $raw{table} sp_row WHERE $raw{range}) TO STDOUT $raw{format}
