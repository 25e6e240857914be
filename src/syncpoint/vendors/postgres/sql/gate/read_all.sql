SELECT gate_name, state, changed_at, host, pid, command, token, turns, clock_timestamp()
FROM ${table}
ORDER BY gate_name
