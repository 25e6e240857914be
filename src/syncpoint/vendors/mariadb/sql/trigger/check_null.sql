    IF $raw{var} IS NULL THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'syncpoint: row too large to capture (max_allowed_packet)';
    END IF;
