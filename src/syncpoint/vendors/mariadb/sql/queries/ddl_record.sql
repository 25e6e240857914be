INSERT INTO ${items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                      content, oldcontent, version, captured_at)
VALUES (${trans_key}(), %(dbid)s, %(table)s, %(schema)s, %(schema)s, UUID(), %(action)s,
        %(content)s, %(oldcontent)s, %(version)s, UTC_TIMESTAMP(6))
---
INSERT INTO ${ddl_log} (repl_key, tablename, db_action, version, captured_at, detail)
VALUES (LAST_INSERT_ID(), %(table)s, %(action)s, %(version)s, UTC_TIMESTAMP(6), %(detail)s)
