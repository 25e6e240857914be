-- One change record. trans_key: the tick that will stamp it (see capture.py: SQLite cannot
-- tell one writer transaction from the next in SQL, but writers and ticks are serialized).
INSERT INTO ${items} (context, trans_key, dbid, tablename, db_catalog, db_schema, guid,
                      db_action, content, oldcontent, version, captured_at, fix)
$raw{select}
