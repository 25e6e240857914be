-- The net deletes of a window from its typed staging, where the key can be equal at the
-- target while its text differs: a target row equal to a key the window upserts stays
-- (see delete_spare.sql).
DELETE FROM $raw{target} t
 USING (SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = 'D') d
 WHERE $raw{match}
   AND NOT EXISTS (SELECT 1 FROM (SELECT $raw{values} FROM $raw{staging} s
                                   WHERE s.sp_action = 'U') u
                    WHERE $raw{spare})
