-- Engine and catalog create time of the named base table.
SELECT t.ENGINE AS engine, t.CREATE_TIME AS created
  FROM information_schema.TABLES t
 WHERE t.TABLE_SCHEMA = %(schema)s AND t.TABLE_NAME = %(table)s
   AND CAST(t.TABLE_NAME AS BINARY) = CAST(%(table)s AS BINARY)
   AND t.TABLE_TYPE = 'BASE TABLE'
