-- Columns of a target table in order: name, type, nullable, key position. The type is read
-- as capture reads it (queries/columns_select.sql): COLUMN_TYPE, and the character set and
-- collation of a character column in another collation than utf8mb4_bin.
SELECT c.COLUMN_NAME,
       CONCAT(c.COLUMN_TYPE,
              IF(c.COLLATION_NAME IS NULL OR c.COLLATION_NAME = 'utf8mb4_bin', '',
                 CONCAT(' character set ', c.CHARACTER_SET_NAME,
                        ' collate ', c.COLLATION_NAME))),
       c.IS_NULLABLE = 'YES', k.ORDINAL_POSITION
FROM information_schema.COLUMNS c
LEFT JOIN information_schema.KEY_COLUMN_USAGE k
  ON k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME
 AND k.COLUMN_NAME = c.COLUMN_NAME AND k.CONSTRAINT_NAME = 'PRIMARY'
WHERE c.TABLE_SCHEMA = COALESCE(%s, DATABASE()) AND c.TABLE_NAME = %s
ORDER BY c.ORDINAL_POSITION
