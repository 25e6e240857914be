-- Index columns of a table other than its primary key, in order: name, unique, column
-- (NULL for an expression), prefix length (partial column: not carried), and the index's
-- type (BTREE, HASH, FULLTEXT, SPATIAL).
SELECT INDEX_NAME, NON_UNIQUE = 0, COLUMN_NAME, SUB_PART, INDEX_TYPE
  FROM information_schema.STATISTICS
 WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s AND INDEX_NAME <> 'PRIMARY'
 ORDER BY INDEX_NAME, SEQ_IN_INDEX
