-- Foreign keys of the named (child) table whose rule changes its rows from the parent side:
-- InnoDB applies cascades below the SQL layer, so the child's triggers do not fire.
SELECT r.CONSTRAINT_NAME, r.REFERENCED_TABLE_NAME, r.DELETE_RULE, r.UPDATE_RULE
  FROM information_schema.REFERENTIAL_CONSTRAINTS r
 WHERE r.CONSTRAINT_SCHEMA = %(schema)s AND r.TABLE_NAME = %(table)s
   AND CAST(r.TABLE_NAME AS BINARY) = CAST(%(table)s AS BINARY)
   AND (r.DELETE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT')
        OR r.UPDATE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT'))
 ORDER BY r.CONSTRAINT_NAME
