-- Records no tick has stamped yet whose REAL/BLOB values still have their raw form.
SELECT repl_key, content, oldcontent, fix FROM ${items} WHERE context IS NULL AND fix IS NOT NULL
