UPDATE ${service_context} SET polled_key = %(mark)s WHERE id = 1
