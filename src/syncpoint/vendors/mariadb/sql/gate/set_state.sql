UPDATE ${table}
SET state = %s, changed_at = UTC_TIMESTAMP(6), host = %s, pid = %s, command = %s,
    token = %s, turns = turns + 1
WHERE gate_name = %s
