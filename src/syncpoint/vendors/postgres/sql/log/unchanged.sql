-- An UPDATE's TOASTed values it left unchanged, read from the table by the row's key.
SELECT $raw{columns} FROM $raw{rel} WHERE $raw{condition}
