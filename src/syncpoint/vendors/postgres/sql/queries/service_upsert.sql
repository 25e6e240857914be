INSERT INTO ${schema}.${service} (stream_id, location)
VALUES (%(stream_id)s, %(location)s)
ON CONFLICT (one) DO UPDATE SET location = EXCLUDED.location
