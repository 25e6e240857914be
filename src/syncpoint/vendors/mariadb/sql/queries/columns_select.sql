-- The columns of tables as describe() and cols_view see them (a fragment, not a statement;
-- the schema is a literal or a parameter; the same_table tokens narrow the joins to one
-- table when the caller knows it). Every information_schema table is filtered by a constant
-- schema, so MariaDB opens only that database's tables (never those of other databases,
-- whose metadata locks could make this wait), and each is read once (joins, not dependent
-- subqueries; DISTINCT keeps a derived table from being merged into the outer query,
-- where its filter would no longer narrow the scan). information_schema compares names
-- case-insensitively; MariaDB table names are case-sensitive on Linux, so every name
-- comparison is also made on bytes. A column's type is COLUMN_TYPE as declared (ENUM and
-- SET labels keep their case) followed, for a character column in another collation than
-- utf8mb4_bin (the default of a table syncpoint creates: integrate/create_table.sql), by its
-- character set and collation, so that a MariaDB target created from it holds the same
-- values and compares them the same way.
SELECT c.TABLE_SCHEMA AS schemaname,
       c.TABLE_NAME AS tablename,
       c.ORDINAL_POSITION AS ordinal,
       c.COLUMN_NAME AS colname,
       LOWER(c.DATA_TYPE) AS data_type,
       CONCAT(c.COLUMN_TYPE,
              IF(c.COLLATION_NAME IS NULL OR c.COLLATION_NAME = 'utf8mb4_bin', '',
                 CONCAT(' character set ', c.CHARACTER_SET_NAME,
                        ' collate ', c.COLLATION_NAME))) AS column_type,
       c.DATETIME_PRECISION AS fsp,
       IF(c.IS_NULLABLE = 'YES', 1, 0) AS nullable,
       s.SEQ_IN_INDEX AS pk,
       IF(LOWER(c.DATA_TYPE) = 'json' OR k.t IS NOT NULL, 1, 0) AS is_json
  FROM information_schema.COLUMNS c
  LEFT JOIN (SELECT DISTINCT CAST(TABLE_NAME AS BINARY) AS t, COLUMN_NAME, SEQ_IN_INDEX
               FROM information_schema.STATISTICS
              WHERE TABLE_SCHEMA = $raw{schema} $raw{same_table_s} AND INDEX_NAME = 'PRIMARY') s
    ON s.t = CAST(c.TABLE_NAME AS BINARY) AND s.COLUMN_NAME = c.COLUMN_NAME
  LEFT JOIN (SELECT DISTINCT CAST(TABLE_NAME AS BINARY) AS t,
                             CAST(CHECK_CLAUSE AS BINARY) AS clause
               FROM information_schema.CHECK_CONSTRAINTS
              WHERE CONSTRAINT_SCHEMA = $raw{schema} $raw{same_table_k}) k
    ON k.t = CAST(c.TABLE_NAME AS BINARY)
   AND k.clause = CAST(CONCAT('json_valid(`', REPLACE(c.COLUMN_NAME, '`', '``'), '`)') AS BINARY)
