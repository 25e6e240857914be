-- Every foreign key of the database with a rule that changes child rows from the parent
-- side, column by column: InnoDB applies these below the SQL layer (no trigger fires, the
-- binary log holds only the parent's row), so rounds make their changes at the target.
SELECT r.CONSTRAINT_NAME, r.TABLE_NAME, k.COLUMN_NAME, r.UNIQUE_CONSTRAINT_SCHEMA,
       r.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME, r.DELETE_RULE, r.UPDATE_RULE
  FROM information_schema.REFERENTIAL_CONSTRAINTS r
  JOIN information_schema.KEY_COLUMN_USAGE k
    ON k.CONSTRAINT_SCHEMA = r.CONSTRAINT_SCHEMA AND k.TABLE_NAME = r.TABLE_NAME
   AND k.CONSTRAINT_NAME = r.CONSTRAINT_NAME AND k.REFERENCED_TABLE_NAME IS NOT NULL
 WHERE r.CONSTRAINT_SCHEMA = %(schema)s
   AND (r.DELETE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT')
        OR r.UPDATE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT'))
 ORDER BY r.TABLE_NAME, r.CONSTRAINT_NAME, k.ORDINAL_POSITION
