-- One key range of a chunk, at the source (the direct path): the target's columns in
-- order, and the chunk's attempt id. A plain read: writers are never blocked.
COPY (SELECT $raw{columns}, $lit{attempt} FROM $raw{table} sp_row WHERE $raw{range})
TO STDOUT $raw{format}
