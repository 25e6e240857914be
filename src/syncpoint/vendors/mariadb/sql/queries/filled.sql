-- The columns of a table whose rows hold a value without having been written: a default
-- (an added column's existing rows take it; a default of NULL reads 'NULL', a text default
-- is quoted), an AUTO_INCREMENT or a generated column.
SELECT COLUMN_NAME FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA = %(schema)s AND TABLE_NAME = %(table)s
   AND ((COLUMN_DEFAULT IS NOT NULL AND COLUMN_DEFAULT <> 'NULL')
        OR EXTRA LIKE '%%auto_increment%%' OR EXTRA LIKE '%%GENERATED%%')
