-- Keys of the committed records above max_key not in a tick (1: not stamped).
SELECT repl_key AS k, 1 AS n FROM ${items} FORCE INDEX (by_context)
 WHERE context IS NULL AND repl_key > %(after)s
