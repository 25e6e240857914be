UPDATE ${schema}.${log_tables}
   SET relid = %(relid)s, schemaname = %(schema)s, tablename = %(table)s,
       version = %(version)s, shape = %(shape)s::jsonb
 WHERE id = %(id)s
