-- The queue's high-water mark now, and at the previous poll (records written by triggers of
-- an old shape after a column change all have greater keys than the previous mark).
SELECT (SELECT COALESCE(MAX(repl_key), 0) FROM ${items}), polled_key
  FROM ${service_context} WHERE id = 1
