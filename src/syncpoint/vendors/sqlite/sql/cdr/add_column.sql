ALTER TABLE $raw{target} ADD COLUMN $raw{column} $raw{type}
