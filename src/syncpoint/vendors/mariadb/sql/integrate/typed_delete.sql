-- Net deletes of one window from its typed staging, by the key in the target's types (a
-- key of integers: no upsert of the window has a key equal to a delete's).
DELETE t FROM $raw{target} t JOIN $raw{staging} d ON $raw{match}
 WHERE d.sp_action = 'D'
