-- The records written in a tick already (log capture's drain) and their lowest and highest
-- keys: stamping alone does not count them, and one range covers them.
SELECT COUNT(*), COALESCE(MIN(repl_key), 0), COALESCE(MAX(repl_key), 0)
  FROM ${items} WHERE context = %s
