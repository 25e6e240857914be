-- Whether conflict resolution's settings table exists in this database.
SELECT COUNT(*) FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %(name)s
