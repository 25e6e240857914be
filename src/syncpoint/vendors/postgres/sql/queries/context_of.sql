(SELECT k.tick_id FROM ${schema}.${ticks} AS k
  WHERE k.tick_id > $raw{after} AND k.tick_id <= $raw{upto}
    AND pg_visible_in_snapshot(i.trans_key, k.snapshot)
  ORDER BY k.tick_id LIMIT 1)
