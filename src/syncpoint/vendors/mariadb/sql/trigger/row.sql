-- One row trigger of a watched table (rendered by triggers.py; the columns are named one by
-- one, so poll_ddl renders it again when the table's columns change). CREATE OR REPLACE swaps
-- it under an exclusive metadata lock: no statement on the table runs without a trigger.
-- The size checks come first, in the outer block: the inner block's DECLAREs encode the row.
-- A column dropped or renamed since this trigger was rendered makes the row's encoding fail
-- with 1054 (unknown column in NEW/OLD): the application's statement must not fail for it,
-- so the row is then captured column by column with what still exists (stale.sql), and the
-- next poll writes the ALTER record and captures the row again in full after it.
CREATE OR REPLACE TRIGGER ${trigger} AFTER $raw{event} ON ${table} FOR EACH ROW
BEGIN
  DECLARE v_stale INT DEFAULT 0;
  BEGIN
    DECLARE EXIT HANDLER FOR 1054 SET v_stale = 1;
$raw{size_checks}
  BEGIN
    DECLARE v_new LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT $raw{new};
    DECLARE v_old LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT $raw{old};
    -- the statement's transaction key, kept by trans_key() (this test saves the call)
    DECLARE v_tk VARCHAR(100) CHARACTER SET ascii DEFAULT
      IF($raw{var}tk_at = @@timestamp AND $raw{var}tk_tx = @@in_transaction
         AND UNIX_TIMESTAMP(SYSDATE(6)) - @@timestamp BETWEEN 0 AND 10,
         $raw{var}tk, ${trans_key}());
    DECLARE v_dbid VARCHAR(64) CHARACTER SET utf8mb4 DEFAULT COALESCE($raw{origin}, $lit{location});
$raw{null_checks}
    INSERT INTO ${items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                          content, oldcontent, version, captured_at)
    VALUES (v_tk, v_dbid, $lit{tablename}, $lit{schema}, $lit{schema}, UUID(), '$raw{action}',
            v_new, v_old, $raw{version},
            UTC_TIMESTAMP(6) + INTERVAL TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6)) MICROSECOND);
$raw{debug}
  END;
  END;
  IF v_stale THEN
$raw{stale}
  END IF;
END
