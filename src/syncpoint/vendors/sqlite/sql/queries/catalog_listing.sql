SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name
