SELECT tablename, cid, name, type, "notnull", pk FROM ${cols_snapshot} ORDER BY tablename, cid
