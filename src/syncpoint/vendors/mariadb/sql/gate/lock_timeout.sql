-- Bounds the wait for the row lock (whole seconds, at least 1).
SET SESSION innodb_lock_wait_timeout = %s
