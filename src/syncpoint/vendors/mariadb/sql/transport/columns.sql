-- Columns of a transport table: name, type as DDL spells it, nullable, position in the key.
SELECT c.COLUMN_NAME,
       c.COLUMN_TYPE,
       c.IS_NULLABLE = 'YES',
       (SELECT k.ORDINAL_POSITION
          FROM information_schema.KEY_COLUMN_USAGE k
         WHERE k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME
           AND k.CONSTRAINT_NAME = 'PRIMARY' AND k.COLUMN_NAME = c.COLUMN_NAME)
FROM information_schema.COLUMNS c
WHERE c.TABLE_SCHEMA = COALESCE(%s, DATABASE())
  AND c.TABLE_NAME = %s
ORDER BY c.ORDINAL_POSITION
