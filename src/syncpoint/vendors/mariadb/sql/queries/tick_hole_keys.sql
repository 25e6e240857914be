-- Keys of the committed records that appeared in holes (transactions that committed after a
-- tick that saw later keys).
SELECT i.repl_key AS k, 1 AS n
  FROM ${tick_holes} h STRAIGHT_JOIN ${items} i FORCE INDEX (by_context)
    ON i.context IS NULL AND i.repl_key BETWEEN h.lo AND h.hi
