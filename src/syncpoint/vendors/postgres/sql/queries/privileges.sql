-- What the connection's user may do here (validate names what install and run will lack):
-- superuser, its name, the database, CREATE on the database (a publication) and on the
-- schema of the capture or control objects, USAGE on that schema.
SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
       current_user::text,
       current_database()::text,
       has_database_privilege(current_database(), 'CREATE'),
       has_schema_privilege(n.oid, 'CREATE'),
       has_schema_privilege(n.oid, 'USAGE'),
       n.nspname IS NOT NULL
  FROM (SELECT 1) one
  LEFT JOIN pg_namespace n ON n.nspname = %(schema)s
