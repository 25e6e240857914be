-- A new gate; processes starting at once on a fresh gate all run this, one row wins.
INSERT INTO ${table} (gate_name, state, changed_at, host, pid, command, token, turns)
VALUES (?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now'), ?, ?, ?, ?, 0)
ON CONFLICT (gate_name) DO NOTHING
