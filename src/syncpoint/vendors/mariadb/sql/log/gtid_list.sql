-- The oldest binary log's first events: its GTID list is the position before it. (SHOW
-- takes a plain string here: the file name is bound, which the driver sends quoted.)
SHOW BINLOG EVENTS IN %(file)s LIMIT 4
