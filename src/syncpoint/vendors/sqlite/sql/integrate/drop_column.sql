ALTER TABLE $raw{target} DROP COLUMN ${column}
