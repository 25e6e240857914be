-- The staged rows ([row, before, delete version], see read.sql), the row's values converted,
-- in the order the changes were captured: d_lock scans them so, and locks rows in one order
-- whatever order Spark staged them in.
INSERT INTO ${d} (sp_rk, sp_c, sp_dv, sp_hb, sp_hl, $raw{columns})
SELECT s.repl_key, s.content, s.dv, IF(JSON_TYPE(s.b) = 'OBJECT', 1, 0), 0, $raw{values}
FROM (SELECT st.repl_key, JSON_EXTRACT(st.content, '$[0]') AS content,
             JSON_EXTRACT(st.content, '$[1]') AS b, JSON_VALUE(st.content, '$[2]') AS dv
        FROM ${staging} st
       WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = %(action)s) s
ORDER BY s.repl_key
