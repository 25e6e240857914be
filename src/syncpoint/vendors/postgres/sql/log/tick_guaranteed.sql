-- The tick covers what the drain read: its guaranteed time is at most the drain's.
UPDATE ${schema}.${ticks} SET guaranteed = least(guaranteed, %(g)s) WHERE tick_id = %(tick)s
RETURNING guaranteed
---
UPDATE ${schema}.${service} SET guaranteed = least(guaranteed, %(g)s)
