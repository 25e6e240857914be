-- Capture the current values of the given rows again, as UPDATE records whose old and new
-- content are both the row as it is now (after a column change: records written by the
-- triggers of the old shape between the ALTER and the new triggers miss the new columns).
-- Shared locks as in reload.sql.
INSERT INTO ${items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                      content, oldcontent, version, captured_at)
SELECT ${trans_key}(), $lit{location}, $lit{tablename}, $lit{schema}, $lit{schema}, UUID(),
       'UPDATE', $raw{row}, $raw{row}, $raw{version}, UTC_TIMESTAMP(6)
  FROM ${table} AS src
 WHERE $raw{where}
  LOCK IN SHARE MODE
