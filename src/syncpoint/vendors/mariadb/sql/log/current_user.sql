-- The account this session runs as, and its grants (validate's note on sql_log_bin).
SELECT CURRENT_USER()
