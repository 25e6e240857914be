ALTER TABLE $raw{target} ALTER COLUMN ${column} TYPE $raw{type} USING ${column}::$raw{type}
