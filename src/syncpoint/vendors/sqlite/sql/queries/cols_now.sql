SELECT tablename, cid, name, type, "notnull", pk FROM ${cols_view} ORDER BY tablename, cid
