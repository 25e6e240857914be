-- The first transactions of the log not read into the queue yet (peek: the slot does not
-- move, nothing is written), to date the oldest change waiting in it per table.
SELECT data
  FROM pg_logical_slot_peek_binary_changes(
           %(slot)s, NULL, %(n)s,
           'proto_version', '1', 'publication_names', %(pub)s, 'messages', 'true')
