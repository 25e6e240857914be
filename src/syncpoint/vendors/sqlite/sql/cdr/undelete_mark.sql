-- How many incoming deletes find the row of their incarnation deleted here already, kept by
-- its tombstone (CdrSite.undelete), and the newest record of the queue so far (writers are
-- serialized: the records after it are this transaction's).
SELECT (SELECT count(*) FROM ${d} AS d WHERE $raw{restored}),
       coalesce((SELECT max(i.repl_key) FROM $raw{items} AS i), 0)
