-- Whether a target table exists, and whether the user may read, insert, update and delete
-- its rows (what a round does there).
SELECT c.oid IS NOT NULL,
       has_table_privilege(c.oid, 'SELECT'),
       has_table_privilege(c.oid, 'INSERT'),
       has_table_privilege(c.oid, 'UPDATE'),
       has_table_privilege(c.oid, 'DELETE')
  FROM (SELECT to_regclass(format('%%I.%%I', coalesce(%(schema)s::text, current_schema()), %(table)s::text)) AS oid) r
  LEFT JOIN pg_class c ON c.oid = r.oid
