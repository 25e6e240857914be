-- The capture records of the rows put back (undelete.sql): this transaction's inserts of the
-- table queued after the mark (undelete_mark.sql).
SELECT i.repl_key FROM $raw{items} i
 WHERE i.tablename = $lit{tablename} AND i.trans_key = pg_current_xact_id()
   AND i.repl_key > %(mark)s AND i.db_action = 'INSERT'
