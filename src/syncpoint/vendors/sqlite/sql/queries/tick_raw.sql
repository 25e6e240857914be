-- Records no tick has stamped yet whose REAL/BLOB values still have their raw form, a batch
-- at a time in repl_key order.
SELECT repl_key, content, oldcontent, fix
  FROM ${items}
 WHERE context IS NULL AND fix IS NOT NULL AND repl_key > ?
 ORDER BY repl_key
 LIMIT ?
