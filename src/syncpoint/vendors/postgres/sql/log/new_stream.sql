-- A lost slot replaced: a new stream (positions of the old one are refused downstream),
-- the tables it stopped run again.
UPDATE ${schema}.${service} SET stream_id = %(stream_id)s
---
UPDATE ${schema}.${tables} SET status = 'OK', reason = NULL WHERE status = 'ERROR'
