-- A local delete writes the tombstone, with the row deleted (cdr add; made again where
-- it wrote no deleted row).
DROP TRIGGER IF EXISTS $raw{trg_ad}
---
CREATE TRIGGER $raw{trg_ad} AFTER DELETE ON $raw{target}
WHEN NOT EXISTS (SELECT 1 FROM ${origin})
BEGIN
  INSERT INTO ${tombstones} (table_name, key, kv, version, deleted_row)
  VALUES ($raw{table}, $raw{old_key}, OLD.$raw{kv}, $raw{now}, $raw{old_row})
  ON CONFLICT (table_name, key, kv) DO UPDATE
     SET version = excluded.version, deleted_at = excluded.deleted_at,
         deleted_row = excluded.deleted_row;
END
