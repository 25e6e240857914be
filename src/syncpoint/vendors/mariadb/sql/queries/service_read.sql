SELECT context, stream_id, location, guaranteed, ticked_at FROM ${service_context} WHERE id = 1
