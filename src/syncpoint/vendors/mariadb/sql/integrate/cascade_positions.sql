-- The key of each net row of a child window, converted to the key columns' own types by
-- assignment, with its position and action: a cascade changes only rows whose last change
-- came before it. Temporary tables survive a rollback: made anew each time.
DROP TEMPORARY TABLE IF EXISTS $raw{pos}
---
CREATE TEMPORARY TABLE $raw{pos} (INDEX ($raw{columns})) ENGINE=InnoDB
SELECT $raw{columns}, CAST(0 AS SIGNED) AS sp_pos, CAST('' AS CHAR(1)) AS sp_action
  FROM $raw{target} LIMIT 0
---
INSERT INTO $raw{pos} ($raw{columns}, sp_pos, sp_action)
SELECT $raw{values}, s.repl_key, s.action FROM ${staging} s
 WHERE s.round_id = %(round_id)s AND s.tbl = %(tbl)s
