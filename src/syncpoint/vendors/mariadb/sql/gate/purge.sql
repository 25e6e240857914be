-- DELETE, not TRUNCATE: TRUNCATE commits implicitly, and the purge must commit together with
-- the state change that takes the gate.
DELETE FROM $raw{target}
