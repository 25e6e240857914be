-- Net deletes of one window from its typed staging, by the key in the target's types,
-- keeping a target row that an upsert of the same window wrote (keys the source tells
-- apart that the target holds equal, 1.0 and 1.00: as delete_spare.sql keeps them); the
-- staging's key index (typed_create.sql) finds the upserts.
DELETE t FROM $raw{target} t JOIN $raw{staging} d ON $raw{match}
 WHERE d.sp_action = 'D'
   AND NOT EXISTS (SELECT 1 FROM $raw{staging} u WHERE u.sp_action = 'U' AND $raw{spare})
