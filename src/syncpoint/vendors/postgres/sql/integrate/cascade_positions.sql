-- The key of each net row of a child window, in the key columns' own types, with its
-- position and action: a cascade changes only rows whose last change came before it.
CREATE TEMPORARY TABLE $raw{pos} ON COMMIT DROP AS
SELECT $raw{values}, s.repl_key AS sp_pos, s.action AS sp_action
  FROM (SELECT st.content::jsonb AS c, st.repl_key, st.action FROM ${staging} st
         WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s) s
