INSERT INTO $raw{table} ($raw{columns}) VALUES ($raw{params})
