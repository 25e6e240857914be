-- Unique indexes of a target table (ON DUPLICATE KEY UPDATE acts on any of them): index
-- name and column names in index order.
SELECT INDEX_NAME, COLUMN_NAME
FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = COALESCE(%s, DATABASE()) AND TABLE_NAME = %s AND NON_UNIQUE = 0
ORDER BY INDEX_NAME, SEQ_IN_INDEX
