-- INSERT/UPDATE OR REPLACE deletes conflicting rows without firing delete triggers (unless
-- the writer turned recursive_triggers on): remember the rows this row conflicts with.
CREATE TRIGGER ${trigger} BEFORE $raw{event} ON ${table}$raw{when}
BEGIN
DELETE FROM ${pending} WHERE tablename = $lit{table};
INSERT INTO ${pending} (tablename, kind, rid, old, fix)
SELECT $lit{table}, $lit{kind}, $raw{rid}, $raw{old}, $raw{fix}
  FROM ${table} AS sp_row
 WHERE $raw{conflict}
 ORDER BY $raw{order};
END
