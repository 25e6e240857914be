-- The slot advanced to what the queue stores (decoded, committed by an earlier drain
-- transaction): the slot never passes what is stored. Only when it is behind (an advance
-- decodes the log from the slot's restart position even when it has nowhere to go), and
-- not while a follower's session streams it (that session confirms what it stored).
WITH moved AS (
    SELECT pg_replication_slot_advance(r.slot_name, s.decoded)
      FROM ${schema}.${log_state} s
      JOIN pg_replication_slots r ON r.slot_name = %(slot)s
     WHERE s.decoded > r.confirmed_flush_lsn AND NOT r.active
)
UPDATE ${schema}.${log_state} SET advanced_at = clock_timestamp()
 WHERE EXISTS (SELECT FROM moved)
