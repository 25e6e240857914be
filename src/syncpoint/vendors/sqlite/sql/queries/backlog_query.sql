-- The records of one table (or of several: status's one query per location) after tick
-- "after", stamped by a later tick or not stamped yet: status's backlog without making a
-- tick (it writes nothing).
SELECT repl_key, captured_at, tablename, db_action
  FROM ${items}
 WHERE tablename IN ($raw{tables}) AND (context > $raw{after} OR context IS NULL)
