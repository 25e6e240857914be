-- The net deletes of a window from its typed staging, where the key is one integer column
-- that holds no NULL: the keys as one array the key's unique index walks, a search for each
-- (a join's plan for a staging without statistics read the whole target into a hash table
-- instead, however few the deletes).
DELETE FROM $raw{target} t
 WHERE t.$raw{key} = ANY (ARRAY(SELECT $raw{value} FROM $raw{staging} s WHERE s.sp_action = 'D'))
