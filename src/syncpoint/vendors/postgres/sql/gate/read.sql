SELECT gate_name, state, changed_at, host, pid, command, token, turns, clock_timestamp()
FROM ${table}
WHERE gate_name = %s
