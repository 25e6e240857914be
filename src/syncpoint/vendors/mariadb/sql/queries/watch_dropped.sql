UPDATE ${tables} SET trigger_name = NULL, trigger_version = NULL
 WHERE schemaname = %(schema)s AND tablename = %(table)s
