-- Whether the target has a row in the chunk's key range (the key is the partition column,
-- so its unique index answers).
SELECT EXISTS (SELECT 1 FROM $raw{target} sp_row WHERE $raw{range})
