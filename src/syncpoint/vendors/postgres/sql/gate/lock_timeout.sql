-- First statement of the locking transaction: bounds the wait for the row lock (local to it).
SELECT set_config('lock_timeout', %s, true)
