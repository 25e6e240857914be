INSERT INTO ${sync_points}
    (application_name, location, sync_name, context, stream_id, sampled_at, guaranteed_at)
VALUES (%s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (application_name, location, sync_name) DO UPDATE SET
    context = EXCLUDED.context, stream_id = EXCLUDED.stream_id,
    sampled_at = EXCLUDED.sampled_at, guaranteed_at = EXCLUDED.guaranteed_at
