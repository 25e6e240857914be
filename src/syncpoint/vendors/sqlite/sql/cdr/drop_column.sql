ALTER TABLE $raw{target} DROP COLUMN $raw{column}
