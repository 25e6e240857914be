-- A new gate; processes starting at once on a fresh gate all run this, one row wins.
INSERT INTO ${table} (gate_name, state, changed_at, host, pid, command, token, turns)
VALUES (%s, %s, clock_timestamp(), %s, %s, %s, %s, 0)
ON CONFLICT (gate_name) DO NOTHING
