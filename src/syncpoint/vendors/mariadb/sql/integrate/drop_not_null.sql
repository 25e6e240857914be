-- A column the source made nullable (a target created with the source's NOT NULL): its
-- type as the target has it, now NULL.
ALTER TABLE $raw{target} MODIFY COLUMN ${column} $raw{type} NULL
