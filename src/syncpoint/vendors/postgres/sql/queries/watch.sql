-- Creates the table's capture function and triggers; its status becomes OK.
SELECT ${schema}.${fn_make}(t.id)
  FROM ${schema}.${tables} t
 WHERE t.schemaname = %(schema)s AND t.tablename = %(table)s
