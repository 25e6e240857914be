-- The table default utf8mb4_bin holds every value exactly; a column of a MariaDB source in
-- another collation carries it in its type (queries/columns_select.sql).
CREATE TABLE $raw{target} ($raw{columns}, PRIMARY KEY ($raw{key}))
ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
