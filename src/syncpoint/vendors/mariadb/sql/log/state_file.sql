-- Where the position of a fresh install is in the binary log (for the retained figures).
UPDATE ${log_state} SET log_file = %(log_file)s, log_pos = %(log_pos)s
 WHERE id = 1 AND log_file IS NULL
