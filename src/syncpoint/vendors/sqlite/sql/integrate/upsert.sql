INSERT INTO $raw{target} ($raw{columns}) VALUES ($raw{values})
ON CONFLICT ($raw{key}) DO $raw{on_conflict}
