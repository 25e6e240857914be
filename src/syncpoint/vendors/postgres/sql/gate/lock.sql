-- The decision is made on this locked read only (READ COMMITTED: waits for a holder, then
-- sees the row as that holder committed it).
SELECT gate_name, state, changed_at, host, pid, command, token, turns, clock_timestamp()
FROM ${table}
WHERE gate_name = %s
FOR UPDATE
