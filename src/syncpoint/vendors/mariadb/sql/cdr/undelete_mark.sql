-- How many incoming deletes find the row of their incarnation deleted here already, kept by
-- its tombstone (CdrSite.undelete), and the newest record of the queue so far: the records
-- the rows put back make come after it.
SELECT (SELECT COUNT(*) FROM ${d} d WHERE $raw{restored}),
       COALESCE((SELECT MAX(i.repl_key) FROM $raw{items} i), 0)
