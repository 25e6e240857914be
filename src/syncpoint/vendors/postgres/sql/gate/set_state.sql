UPDATE ${table}
SET state = %s, changed_at = clock_timestamp(), host = %s, pid = %s, command = %s,
    token = %s, turns = turns + 1
WHERE gate_name = %s
