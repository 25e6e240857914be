-- Capture the whole table again, as INSERT records (after a TRUNCATE, or when a watched table
-- appears again). The rows are read with shared locks: writers still open are waited for and
-- their records come first; later writers wait and their records come after these.
INSERT INTO ${items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                      content, oldcontent, version, captured_at)
SELECT ${trans_key}(), $lit{location}, $lit{tablename}, $lit{schema}, $lit{schema}, UUID(),
       'INSERT', $raw{row}, NULL, $raw{version}, UTC_TIMESTAMP(6)
  FROM ${table} AS src
  LOCK IN SHARE MODE
