-- The shape of a watched table as of now replaces the previous snapshot.
DELETE FROM ${cols_snapshot} WHERE schemaname = %(schema)s AND tablename = %(table)s
