-- The net deletes of a window from its typed staging, where the key can be equal at the
-- target while its text differs: a target row equal to a key the window upserts stays
-- (see delete_spare.sql, whose set difference this is).
DELETE FROM $raw{target} t
 USING (SELECT $raw{keys} FROM $raw{target} t
          JOIN (SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = 'D') d
            ON $raw{match}
        EXCEPT
        SELECT $raw{keys} FROM $raw{target} t
          JOIN (SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = 'U') u
            ON $raw{spare}
       ) x
 WHERE $raw{found}
