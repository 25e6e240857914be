-- The slot is gone or can no longer be read: capture stops with the reason, every watched
-- table too (status shows it), until a reinstall makes a new slot and a new stream.
UPDATE ${schema}.${log_state} SET lost = %(reason)s
---
UPDATE ${schema}.${tables} SET status = 'ERROR', reason = %(reason)s WHERE status = 'OK'
