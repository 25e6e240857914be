-- One change record. trans_key: the tick that will stamp it (see capture.py: SQLite cannot
-- tell one writer transaction from the next in SQL, but writers and ticks are serialized).
INSERT INTO ${items} (context, trans_key, dbid, tablename, db_catalog, db_schema, guid,
                      db_action, content, oldcontent, version, captured_at, fix)
SELECT NULL, sc.context + 1, coalesce((SELECT o.dbid FROM ${origin} AS o LIMIT 1), sc.location),
       $lit{table}, $lit{catalog}, 'main', lower(hex(randomblob(16))), $lit{action},
       $raw{content}, $raw{oldcontent}, $raw{version},
       strftime('%Y-%m-%d %H:%M:%f', 'now') || '000', $raw{fix}
  FROM ${service_context} AS sc$raw{tail}
