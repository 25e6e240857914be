-- The columns of tables as describe() and cols_view see them (a fragment, not a statement).
-- information_schema compares names case-insensitively; MariaDB table names are case-
-- sensitive on Linux, so every name comparison is made on bytes.
SELECT c.TABLE_SCHEMA AS schemaname,
       c.TABLE_NAME AS tablename,
       c.ORDINAL_POSITION AS ordinal,
       c.COLUMN_NAME AS colname,
       LOWER(c.DATA_TYPE) AS data_type,
       LOWER(c.COLUMN_TYPE) AS column_type,
       c.DATETIME_PRECISION AS fsp,
       IF(c.IS_NULLABLE = 'YES', 1, 0) AS nullable,
       (SELECT s.SEQ_IN_INDEX FROM information_schema.STATISTICS s
         WHERE s.TABLE_SCHEMA = c.TABLE_SCHEMA
           AND CAST(s.TABLE_NAME AS BINARY) = CAST(c.TABLE_NAME AS BINARY)
           AND s.INDEX_NAME = 'PRIMARY' AND s.COLUMN_NAME = c.COLUMN_NAME) AS pk,
       IF(LOWER(c.DATA_TYPE) = 'json' OR EXISTS (
            SELECT 1 FROM information_schema.CHECK_CONSTRAINTS k
             WHERE k.CONSTRAINT_SCHEMA = c.TABLE_SCHEMA
               AND CAST(k.TABLE_NAME AS BINARY) = CAST(c.TABLE_NAME AS BINARY)
               AND CAST(k.CHECK_CLAUSE AS BINARY) = CAST(
                   CONCAT('json_valid(`', REPLACE(c.COLUMN_NAME, '`', '``'), '`)') AS BINARY)),
          1, 0) AS is_json
  FROM information_schema.COLUMNS c
