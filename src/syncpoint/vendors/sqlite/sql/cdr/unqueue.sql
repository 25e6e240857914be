-- A capture record of a row put back taken out of the queue: putting it back is no change
-- to pass on (CdrSite.undelete).
DELETE FROM $raw{items} WHERE repl_key = :key
