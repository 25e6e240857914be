CREATE TABLE $raw{target} ($raw{columns}, PRIMARY KEY ($raw{key}))
ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
