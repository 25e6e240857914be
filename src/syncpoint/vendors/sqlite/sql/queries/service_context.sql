SELECT context, stream_id, location, installed_at, ticked_at FROM ${service_context} WHERE id = 1
