-- Read under BEGIN IMMEDIATE: no other connection can change the row until this one ends.
SELECT gate_name, state, changed_at, host, pid, command, token, turns,
       strftime('%Y-%m-%d %H:%M:%f', 'now')
FROM ${table}
WHERE gate_name = ?
