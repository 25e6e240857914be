  BEGIN
    DECLARE v_new LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL;
    DECLARE v_old LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL;
    DECLARE v_part LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL;
    DECLARE v_gone INT DEFAULT 0;
    DECLARE v_tk VARCHAR(100) CHARACTER SET ascii DEFAULT ${trans_key}();
    DECLARE v_dbid VARCHAR(64) CHARACTER SET utf8mb4 DEFAULT COALESCE($raw{origin}, $lit{location});
    DECLARE CONTINUE HANDLER FOR 1054 SET v_gone = 1;
$raw{columns}
    INSERT INTO ${items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                          content, oldcontent, version, captured_at)
    VALUES (v_tk, v_dbid, $lit{tablename}, $lit{schema}, $lit{schema}, UUID(), '$raw{action}',
            v_new, v_old, $raw{version},
            UTC_TIMESTAMP(6) + INTERVAL TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6)) MICROSECOND);
  END;
