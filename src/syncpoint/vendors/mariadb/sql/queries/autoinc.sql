-- The queue's next repl_key (InnoDB's live counter).
SELECT AUTO_INCREMENT FROM information_schema.TABLES
 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %(name)s
