-- The rows of a child table a cascade reaches, with the position and action of their net
-- row in the round (none: NULL); the caller keeps those the cascade changed at the source.
SELECT $raw{columns}, p.sp_pos, p.sp_action
  FROM $raw{target} t LEFT JOIN $raw{pos} p ON $raw{join}
 WHERE $raw{match}
