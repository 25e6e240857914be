-- The table locked (the application's writes wait) until its triggers are in place: the
-- ALTER commits by itself, and a row written before the triggers would carry no versions
-- (so count as the oldest) and its key no key version after a tombstone. The settings
-- table too, for the settings row. unlock.sql ends it.
LOCK TABLES $raw{target} WRITE, ${cdr} WRITE
---
-- Bookkeeping columns on the table: the key version and one version (time|location) per
-- column group; rows that exist already start at key version 1 and the empty version.
ALTER TABLE $raw{target} $raw{add_columns}
---
-- Local writes stamp the versions; replicated ones (the origin variable is set) keep theirs.
CREATE OR REPLACE TRIGGER $raw{trg_bi} BEFORE INSERT ON $raw{target} FOR EACH ROW
BEGIN
  DECLARE v VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT $raw{now};
  IF $raw{origin} IS NULL THEN
    SET NEW.$raw{kv} = COALESCE((SELECT MAX(tb.kv) + 1 FROM ${tombstones} tb
                                  WHERE tb.table_name = $raw{table}
                                    AND tb.`key` = $raw{new_key}), 1);
    $raw{stamp_all}
  END IF;
END
---
CREATE OR REPLACE TRIGGER $raw{trg_bu} BEFORE UPDATE ON $raw{target} FOR EACH ROW
BEGIN
  DECLARE v VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT $raw{now};
  IF $raw{origin} IS NULL THEN
    SET NEW.$raw{kv} = OLD.$raw{kv};
    $raw{stamp_changed}
  END IF;
END
---
INSERT INTO ${cdr} (table_name, resolution, `groups`, `key`)
VALUES (%(table)s, %(resolution)s, %(groups)s, %(key)s)
