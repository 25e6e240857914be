-- Keys of the records written in the new tick already (log capture's drain; 0: stamped).
SELECT repl_key AS k, 0 AS n FROM ${items} FORCE INDEX (by_context) WHERE context = %(new)s
