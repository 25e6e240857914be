UPDATE ${tables} SET inno_id = %(inno_id)s, created = %(created)s, witness = %(witness)s
 WHERE schemaname = %(schema)s AND tablename = %(table)s
