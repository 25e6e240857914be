SELECT gate_name, state, changed_at, host, pid, command, token, turns,
       strftime('%Y-%m-%d %H:%M:%f', 'now')
FROM ${table}
ORDER BY gate_name
