ALTER TABLE $raw{target} DROP COLUMN IF EXISTS ${column}
