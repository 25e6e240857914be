-- What log capture needs of the server (checked by validate).
SELECT @@global.log_bin, @@global.binlog_format, @@global.binlog_row_image,
       @@global.binlog_row_metadata, @@global.log_bin_compress, @@global.server_id
