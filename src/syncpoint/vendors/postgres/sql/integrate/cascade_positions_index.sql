CREATE INDEX ON $raw{pos} ($raw{columns})
