-- How many incoming deletes find the row of their incarnation deleted here already, kept by
-- its tombstone (CdrSite.undelete), and the newest record this transaction has queued of the
-- table so far: the records the rows put back make come after it.
SELECT (SELECT count(*) FROM ${d} d WHERE $raw{restored}),
       coalesce((SELECT max(i.repl_key) FROM $raw{items} i
                  WHERE i.tablename = $lit{tablename}
                    AND i.trans_key = pg_current_xact_id()), 0)
