-- Where the chunk after the one starting at lo ends: the partition value that many rows
-- further on (the table's key leads with the partition column, so an index walk finds it;
-- none: the chunk from lo is the last). Chunks hold about as many rows however sparse
-- the keys.
SELECT $raw{part} FROM $raw{table} WHERE $raw{part} >= $raw{lo} ORDER BY $raw{part}
LIMIT 1 OFFSET $raw{rows}
