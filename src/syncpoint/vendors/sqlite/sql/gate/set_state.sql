UPDATE ${table}
SET state = ?, changed_at = strftime('%Y-%m-%d %H:%M:%f', 'now'), host = ?, pid = ?,
    command = ?, token = ?, turns = turns + 1
WHERE gate_name = ?
