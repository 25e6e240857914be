-- The decision is made on this locking read only: it reads the latest committed row even in
-- REPEATABLE READ, where a plain SELECT earlier in the transaction could show a stale state.
SELECT gate_name, state, changed_at, host, pid, command, token, turns, UTC_TIMESTAMP(6)
FROM ${table}
WHERE gate_name = %s
FOR UPDATE
