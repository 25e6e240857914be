SELECT location, sync_name, context, stream_id, sampled_at, guaranteed_at FROM ${sync_points}
WHERE application_name = %s
