CREATE TABLE $raw{target} ($raw{columns}, PRIMARY KEY ($raw{key}))
