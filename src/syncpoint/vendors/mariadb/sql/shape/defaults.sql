-- Column defaults of a table as COLUMN_DEFAULT writes them (schema, table given).
SELECT COLUMN_NAME, COLUMN_DEFAULT FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s AND COLUMN_DEFAULT IS NOT NULL
   AND IS_GENERATED = 'NEVER'
