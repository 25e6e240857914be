-- A row into a target without a unique index on the key (its key's rows were deleted first).
INSERT INTO $raw{target} ($raw{columns}) VALUES ($raw{values})
