-- A row a cascade moved, put back after the round's deletes.
INSERT INTO $raw{target} ($raw{columns}) VALUES ($raw{values})
