-- Whole transactions from the slot's confirmed position, those committed at or before the
-- horizon the tick stored (log_horizon, committed just before); it stops after the
-- transaction that passes upto_nchanges messages. Peek: the slot moves only once the
-- records are committed in the queue (advance.sql).
SELECT data
  FROM pg_logical_slot_peek_binary_changes(
           %(slot)s, (SELECT horizon FROM ${schema}.${log_state}), %(n)s,
           'proto_version', '1', 'publication_names', %(pub)s, 'messages', 'true')
