INSERT INTO ${sync_points}
    (application_name, location, sync_name, context, stream_id, sampled_at, guaranteed_at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (application_name, location, sync_name) DO UPDATE SET
    context = excluded.context, stream_id = excluded.stream_id,
    sampled_at = excluded.sampled_at, guaranteed_at = excluded.guaranteed_at
