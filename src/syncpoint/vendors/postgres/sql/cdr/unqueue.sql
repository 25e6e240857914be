-- A capture record of a row put back taken out of the queue: putting it back is no change
-- to pass on (CdrSite.undelete).
DELETE FROM $raw{items} i
 WHERE i.tablename = $lit{tablename} AND i.trans_key = pg_current_xact_id()
   AND i.repl_key = %(key)s
