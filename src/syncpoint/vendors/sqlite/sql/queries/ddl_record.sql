-- A DDL record written by poll_ddl (content: the new shape, oldcontent: the old one).
INSERT INTO ${items} (context, trans_key, dbid, tablename, db_catalog, db_schema, guid,
                      db_action, content, oldcontent, version, captured_at, fix)
SELECT NULL, sc.context + 1, coalesce((SELECT o.dbid FROM ${origin} AS o LIMIT 1), sc.location),
       ?, ?, 'main', lower(hex(randomblob(16))), ?, ?, ?, ?,
       strftime('%Y-%m-%d %H:%M:%f', 'now') || '000', NULL
  FROM ${service_context} AS sc
