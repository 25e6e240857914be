-- The staged events of a parent window (a deleted row; an updated row's old and new row)
-- with the referenced values in the target's types, in position order (old before new).
SELECT s.repl_key, s.action, $raw{values}
  FROM (SELECT st.content::jsonb AS c, st.repl_key, st.action FROM ${staging} st
         WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s) s
 ORDER BY s.repl_key, s.action DESC
