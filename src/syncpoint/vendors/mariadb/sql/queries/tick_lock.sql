-- The ticker lock: ticks are serialized on the service row.
SELECT context, guaranteed, max_key FROM ${service_context} WHERE id = 1 FOR UPDATE
