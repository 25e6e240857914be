-- The tick just made (the service row holds its number) covers what the drain read: its
-- guaranteed time is at most the drain's. Also its own clock reading (made_at).
UPDATE ${schema}.${ticks} AS k SET guaranteed = least(k.guaranteed, %(g)s)
  FROM ${schema}.${service} AS s
 WHERE k.tick_id = s.context
RETURNING k.tick_id, k.guaranteed, k.made_at
