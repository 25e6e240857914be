-- The target rows having the key of a window's typed operations of one action: the net
-- deletes ('D'), or the net upserts of a target without a unique index on the key ('U').
DELETE FROM $raw{target} t
 USING (SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = %s) d
 WHERE $raw{match}
