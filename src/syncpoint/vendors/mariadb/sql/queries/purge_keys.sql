-- The next records of one range of a purged tick, in key order after the last one deleted.
SELECT repl_key FROM ${items} FORCE INDEX (PRIMARY)
 WHERE repl_key > %(after)s AND repl_key <= %(hi)s
   AND IF(%(stamped)s = 1, context = %(tick)s, context IS NULL)
 ORDER BY repl_key
 LIMIT $raw{limit}
