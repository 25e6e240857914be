-- A column the source made nullable (a target created with the source's NOT NULL).
ALTER TABLE $raw{target} ALTER COLUMN ${column} DROP NOT NULL
