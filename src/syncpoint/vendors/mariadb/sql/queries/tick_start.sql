-- t0, read before the tick's transaction starts (so before any refresh of the transaction
-- list that shows it), and the server's key step: ticks need consecutive repl_keys from
-- this server alone (stream.py, key_problem).
SELECT UTC_TIMESTAMP(6), @@global.auto_increment_increment, @@global.auto_increment_offset
