ALTER TABLE $raw{target} RENAME COLUMN ${old} TO ${column}
