ALTER TABLE $raw{target} ADD COLUMN ${column} $raw{type}
