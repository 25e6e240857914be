  IF LENGTH($raw{ref}) > (@@max_allowed_packet - 16) DIV 4 * 3 * 76 DIV 77 THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'syncpoint: binary value too large to capture (max_allowed_packet)';
  END IF;
