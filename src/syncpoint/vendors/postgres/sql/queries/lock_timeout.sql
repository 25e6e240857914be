-- Creating triggers waits for the transactions that use a watched table; give up (and
-- roll everything back) rather than wait forever behind a long one.
SET LOCAL lock_timeout = '60s'
