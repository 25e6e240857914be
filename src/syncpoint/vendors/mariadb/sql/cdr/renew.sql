-- A local delete writes the tombstone, with the row deleted (cdr add; made again where
-- it wrote no deleted row).
CREATE OR REPLACE TRIGGER $raw{trg_ad} AFTER DELETE ON $raw{target} FOR EACH ROW
BEGIN
  IF $raw{origin} IS NULL THEN
    INSERT INTO ${tombstones} (table_name, `key`, kv, version, deleted_at, deleted_row)
    VALUES ($raw{table}, $raw{old_key}, OLD.$raw{kv}, $raw{now}, UTC_TIMESTAMP(6), $raw{old_row})
    ON DUPLICATE KEY UPDATE version = VALUES(version), deleted_at = VALUES(deleted_at),
                            deleted_row = VALUES(deleted_row);
  END IF;
END
