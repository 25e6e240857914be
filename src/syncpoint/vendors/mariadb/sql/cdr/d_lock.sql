-- The local rows of the incoming keys, locked until the round commits (and, for a key
-- without a row, the gap where it would go: no local insert of it meanwhile).
SELECT STRAIGHT_JOIN 1 FROM ${d} d JOIN $raw{target} t ON $raw{match} FOR UPDATE
