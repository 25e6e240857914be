INSERT INTO ${debug_table} (repl_key, line)
SELECT i.repl_key, i.db_action || ' ' || i.tablename || ' ' || coalesce(i.content, i.oldcontent, '')
  FROM ${items} AS i
 WHERE i.repl_key = last_insert_rowid();
