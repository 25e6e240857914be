-- Keep this session's writes out of the binary log (0), or write them again (1); needs
-- BINLOG ADMIN or SUPER. The parameter: 0 or 1.
SET SESSION sql_log_bin = %s
