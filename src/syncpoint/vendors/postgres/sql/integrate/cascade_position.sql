-- The position of one key's net row in the round (no row: the round has none).
SELECT sp_pos FROM $raw{pos} WHERE $raw{match}
