-- Which objects of the prefix exist (tables, views, routines), by exact name, with the body
-- of routines (install replaces a routine only when its body differs).
SELECT TABLE_NAME AS name, TABLE_TYPE AS kind, NULL AS body FROM information_schema.TABLES
 WHERE TABLE_SCHEMA = DATABASE() AND CAST(TABLE_NAME AS BINARY) IN ($raw{names})
UNION ALL
SELECT ROUTINE_NAME, ROUTINE_TYPE, ROUTINE_DEFINITION FROM information_schema.ROUTINES
 WHERE ROUTINE_SCHEMA = DATABASE() AND CAST(ROUTINE_NAME AS BINARY) IN ($raw{names})
