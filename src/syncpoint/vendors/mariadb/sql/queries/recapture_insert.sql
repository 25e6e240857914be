-- One record captured again (reload.sql, refresh.sql).
INSERT INTO ${items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                      content, oldcontent, version, captured_at)
VALUES (${trans_key}(), $lit{location}, $lit{tablename}, $lit{schema}, $lit{schema}, UUID(),
        '$raw{action}', %s, %s, $raw{version}, UTC_TIMESTAMP(6))
