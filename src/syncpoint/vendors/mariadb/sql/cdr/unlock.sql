-- The end of add.sql's lock, once the table's capture triggers are rendered again too
-- (the application's writes waiting meanwhile go on, stamped by the triggers).
UNLOCK TABLES
