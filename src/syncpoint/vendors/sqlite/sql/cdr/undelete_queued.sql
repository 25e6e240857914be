-- The capture records of the rows put back (undelete.sql): the inserts of the table queued
-- after the mark (undelete_mark.sql).
SELECT i.repl_key FROM $raw{items} AS i
 WHERE i.repl_key > :mark AND i.tablename = $lit{tablename} AND i.db_action = 'INSERT'
