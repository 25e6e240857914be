SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name
