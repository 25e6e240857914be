-- A new gate; processes starting at once on a fresh gate all run this, one row wins.
-- (ON DUPLICATE KEY, not INSERT IGNORE: IGNORE would also hide other errors.)
INSERT INTO ${table} (gate_name, state, changed_at, host, pid, command, token, turns)
VALUES (%s, %s, UTC_TIMESTAMP(6), %s, %s, %s, %s, 0)
ON DUPLICATE KEY UPDATE gate_name = gate_name
