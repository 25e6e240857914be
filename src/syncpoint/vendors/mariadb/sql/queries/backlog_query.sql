-- The records of one table after tick "after", stamped by a later tick or not stamped yet
-- (committed: a consistent read shows no other): status's backlog without making a tick.
SELECT repl_key, captured_at
  FROM ${db}.${items}
 WHERE tablename = $lit{table} AND db_schema = $lit{schema}
   AND (context > $raw{after} OR context IS NULL)
