INSERT INTO ${items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                      content, oldcontent, version, captured_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
