    SET v_gone = 0;
    SET v_part = JSON_OBJECT($raw{pair});
    IF v_gone = 0 THEN
      IF v_part IS NULL THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'syncpoint: row too large to capture (max_allowed_packet)';
      END IF;
      SET $raw{target} = CONCAT_WS(', ', $raw{target}, SUBSTRING(v_part, 2, CHAR_LENGTH(v_part) - 2));
    END IF;
