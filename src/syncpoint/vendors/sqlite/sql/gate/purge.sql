-- Transport rows the consumer has loaded, deleted in the transaction that takes the gate.
DELETE FROM $raw{target}
