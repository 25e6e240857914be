INSERT INTO ${sync_points}
    (application_name, location, sync_name, context, stream_id, sampled_at, guaranteed_at)
VALUES (%s, %s, %s, %s, %s, %s, %s)
ON DUPLICATE KEY UPDATE
    context = VALUES(context), stream_id = VALUES(stream_id),
    sampled_at = VALUES(sampled_at), guaranteed_at = VALUES(guaranteed_at)
