DELETE FROM ${tables} WHERE schemaname = %(schema)s AND tablename = %(table)s
---
DELETE FROM ${cols_snapshot} WHERE schemaname = %(schema)s AND tablename = %(table)s
