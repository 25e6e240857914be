-- The capture records of the rows put back (undelete.sql): this transaction's inserts of the
-- table queued after the mark (undelete_mark.sql). A plain read: the records of other
-- sessions' open transactions are neither seen nor waited for.
SELECT i.repl_key FROM $raw{items} i
 WHERE i.repl_key > %(mark)s AND i.tablename = $lit{tablename}
   AND i.trans_key = $raw{trans_key}() AND i.db_action = 'INSERT'
