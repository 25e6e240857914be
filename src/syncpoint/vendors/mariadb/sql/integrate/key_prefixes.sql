-- The prefix length of each column of a target table's primary key that is indexed by a
-- prefix only (TEXT, BLOB), for the index of spare_keys.sql.
SELECT COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = COALESCE(%s, DATABASE()) AND TABLE_NAME = %s AND INDEX_NAME = 'PRIMARY'
  AND SUB_PART IS NOT NULL
