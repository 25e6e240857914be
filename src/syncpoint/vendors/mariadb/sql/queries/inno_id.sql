-- The InnoDB table id of the named table (needs the PROCESS privilege). A TRUNCATE gives the
-- table a new id and keeps its create time; a rebuild (ALTER, OPTIMIZE) changes both.
-- INNODB_SYS_TABLES names tables by their file names, hence CONVERT(... USING filename).
SELECT it.TABLE_ID FROM information_schema.INNODB_SYS_TABLES it
 WHERE CAST(it.NAME AS BINARY) = CONCAT(CAST(CONVERT(%(schema)s USING filename) AS BINARY), '/',
                                        CAST(CONVERT(%(table)s USING filename) AS BINARY))
