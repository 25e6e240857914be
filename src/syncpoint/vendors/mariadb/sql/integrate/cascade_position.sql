-- The position and action of one key's net row in the round (no row: the round has none).
SELECT sp_pos, sp_action FROM $raw{pos} WHERE $raw{match}
