INSERT INTO temp.${spare} VALUES ($raw{values})
