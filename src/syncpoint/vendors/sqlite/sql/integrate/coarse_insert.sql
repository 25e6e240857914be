INSERT INTO temp.${tmp} VALUES ($raw{values})
