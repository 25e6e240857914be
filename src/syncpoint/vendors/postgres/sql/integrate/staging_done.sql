DELETE FROM ${staging} WHERE round_id = %s
