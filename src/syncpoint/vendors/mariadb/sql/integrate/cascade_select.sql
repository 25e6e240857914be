-- A child row a cascade moves onto a key the round deletes later: all of it, to put back.
SELECT $raw{columns} FROM $raw{target} WHERE $raw{match}
