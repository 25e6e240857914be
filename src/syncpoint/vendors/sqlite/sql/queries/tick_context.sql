UPDATE ${service_context} SET context = ?, ticked_at = ? WHERE id = 1
