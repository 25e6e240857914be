-- The records of one table after tick "after", stamped by a later tick or not stamped yet:
-- status's backlog without making a tick (it writes nothing).
SELECT repl_key, captured_at
  FROM ${items}
 WHERE tablename = $lit{table} AND (context > $raw{after} OR context IS NULL)
