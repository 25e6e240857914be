-- Whether the prefix's function exists in this database (install keeps it then).
SELECT COUNT(*) FROM information_schema.ROUTINES
 WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = %s
