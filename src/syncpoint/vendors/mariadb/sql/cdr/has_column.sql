-- Whether a bookkeeping table has a column (bookkeeping made before the column existed).
SELECT COUNT(*) FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %(name)s AND COLUMN_NAME = %(column)s
