ALTER TABLE $raw{target} MODIFY COLUMN ${column} $raw{type}
