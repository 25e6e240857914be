UPDATE ${tables} SET status = %(status)s, reason = %(reason)s
 WHERE schemaname = %(schema)s AND tablename = %(table)s
