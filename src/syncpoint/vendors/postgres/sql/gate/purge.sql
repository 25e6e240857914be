-- Transport rows the consumer has loaded, deleted in the transaction that takes the gate, so
-- a crash before that commit leaves both the rows and the state as they were.
DELETE FROM $raw{target}
