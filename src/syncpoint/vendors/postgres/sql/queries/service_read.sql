SELECT stream_id, location, context, installed_at, ticked_at, guaranteed
  FROM ${schema}.${service}
