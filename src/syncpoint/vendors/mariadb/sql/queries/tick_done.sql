UPDATE ${service_context}
   SET context = %(context)s, guaranteed = %(guaranteed)s, ticked_at = %(made_at)s,
       max_key = GREATEST(max_key, %(max_key)s)
 WHERE id = 1
---
INSERT INTO ${ticks} (tick_id, made_at, guaranteed, records)
VALUES (%(context)s, %(made_at)s, %(guaranteed)s, %(records)s)
