-- Tables of the current database (where the control tables are made); the caller keeps
-- those of its prefix.
SELECT table_name
  FROM information_schema.tables
 WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'
