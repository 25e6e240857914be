-- After the chunk's rows were applied (only its attempt's rows are left here).
TRUNCATE ${staging}
