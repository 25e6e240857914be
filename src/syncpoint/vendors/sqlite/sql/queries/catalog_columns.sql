SELECT cid, name, type, "notnull", pk FROM pragma_table_info(?, 'main') ORDER BY cid
