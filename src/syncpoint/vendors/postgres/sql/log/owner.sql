SELECT pg_has_role(c.relowner, 'USAGE') OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
  FROM pg_class c WHERE c.oid = to_regclass(format('%%I.%%I', %(schema)s::text, %(table)s::text))
