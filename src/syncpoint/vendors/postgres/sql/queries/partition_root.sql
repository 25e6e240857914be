-- The partitioned table at the top of a partition's tree, schema-qualified.
SELECT format('%%s.%%s', rn.nspname, r.relname)
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_class r ON r.oid = pg_partition_root(c.oid)
  JOIN pg_namespace rn ON rn.oid = r.relnamespace
 WHERE n.nspname = %(schema)s AND c.relname = %(table)s AND c.relispartition
