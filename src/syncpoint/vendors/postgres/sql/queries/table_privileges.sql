-- What the connection's user may do with one watched table: own it (capture's triggers are
-- enabled by ALTER TABLE), read it (snapshot), use its schema; its owner's name, and
-- whether that owner is a superuser (membership in it is then no fix to suggest).
SELECT pg_has_role(c.relowner, 'USAGE'),
       has_table_privilege(c.oid, 'SELECT'),
       has_schema_privilege(c.relnamespace, 'USAGE'),
       pg_get_userbyid(c.relowner)::text,
       (SELECT rolsuper FROM pg_roles WHERE oid = c.relowner)
  FROM pg_class c
 WHERE c.oid = to_regclass(format('%%I.%%I', %(schema)s::text, %(table)s::text))
