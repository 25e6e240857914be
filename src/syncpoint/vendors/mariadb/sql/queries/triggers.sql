-- The triggers of the current database named like this prefix's, with their tables
-- (filtered on EVENT_OBJECT_SCHEMA, the column MariaDB looks triggers up by: only this
-- database is read).
SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, EVENT_MANIPULATION, ACTION_STATEMENT
  FROM information_schema.TRIGGERS
 WHERE EVENT_OBJECT_SCHEMA = DATABASE() AND TRIGGER_SCHEMA = DATABASE()
   AND TRIGGER_NAME LIKE %(like)s
