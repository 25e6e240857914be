ALTER TABLE $raw{target} ADD COLUMN IF NOT EXISTS ${column} $raw{type}
