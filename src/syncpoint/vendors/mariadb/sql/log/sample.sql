-- A drain's bounds: the capture clock, read before the binary log's current position (the
-- same statement: UTC_TIMESTAMP is its start), which the drain then reads up to.
SELECT UTC_TIMESTAMP(6), @@global.gtid_binlog_pos
