-- One repl_key range of a window's row records (a ``read_query``), read by a copy task of
-- another vendor's direct path with an unbuffered cursor.
SELECT * FROM ($raw{query}) sp_r WHERE sp_r.repl_key >= $raw{lo} AND sp_r.repl_key < $raw{hi}
