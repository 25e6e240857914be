SELECT gate_name, state, changed_at, host, pid, command, token, turns, UTC_TIMESTAMP(6)
FROM ${table}
WHERE gate_name = %s
