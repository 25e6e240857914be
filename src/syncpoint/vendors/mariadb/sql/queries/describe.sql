$raw{columns_select}
 WHERE c.TABLE_SCHEMA = %(schema)s AND c.TABLE_NAME = %(table)s
   AND CAST(c.TABLE_NAME AS BINARY) = CAST(%(table)s AS BINARY)
 ORDER BY c.ORDINAL_POSITION
