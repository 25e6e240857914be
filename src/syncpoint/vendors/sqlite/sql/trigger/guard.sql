-- Fail the write rather than capture it with a stale column list: after ALTER TABLE ... ADD
-- COLUMN the trigger would silently leave the new column out. The schema cookie is a cheap
-- first test; only when it moved is the column count read.
SELECT RAISE(ABORT, $lit{message})
 WHERE (SELECT schema_version FROM pragma_schema_version) <> $raw{schema_version}
   AND (SELECT count(*) FROM pragma_table_info($lit{table}, 'main')) <> $raw{column_count};
