INSERT INTO ${service_context} (id, context, stream_id, location, installed_at)
VALUES (1, 0, ?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now') || '000')
ON CONFLICT (id) DO UPDATE SET location = excluded.location
