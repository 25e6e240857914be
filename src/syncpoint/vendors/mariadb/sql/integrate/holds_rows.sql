-- Whether the target table has a row in a snapshot chunk's range (or at all): a chunk
-- whose range holds none has nothing to delete.
SELECT 1 FROM $raw{target} WHERE $raw{range} LIMIT 1
