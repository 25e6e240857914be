-- The staged events of a parent window (a deleted row; an updated row's old and new row),
-- in position order (old before new).
SELECT s.repl_key, s.action, $raw{values} FROM ${staging} s
 WHERE s.round_id = %(round_id)s AND s.tbl = %(tbl)s
 ORDER BY s.repl_key, s.action DESC
