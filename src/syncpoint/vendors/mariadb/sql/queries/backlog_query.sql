-- The records of one table (or of several: status's one query per location) after tick
-- "after", stamped by a later tick or not stamped yet (committed: a consistent read shows no
-- other): status's backlog without making a tick.
SELECT repl_key, captured_at, db_schema, tablename, db_action
  FROM ${db}.${items}
 WHERE tablename IN ($raw{tables}) AND db_schema IN ($raw{schemas})
   AND (context > $raw{after} OR context IS NULL)
