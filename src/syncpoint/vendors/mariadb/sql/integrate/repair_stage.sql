-- One row to repair (verify --repair), staged as a round stages its net rows.
INSERT INTO ${staging} (application_name, sync_name, round_id, tbl, action, content, repl_key)
VALUES (%s, %s, %s, 0, %s, %s, 0)
