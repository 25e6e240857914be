-- The staged rows ([row, before, delete version], see read.sql), the row's values converted.
INSERT INTO ${d} (sp_rk, sp_c, sp_dv, sp_hb, sp_hl, $raw{columns})
SELECT s.repl_key, s.c::text, s.dv, CASE WHEN jsonb_typeof(s.b) = 'object' THEN 1 ELSE 0 END,
       0, $raw{values}
FROM (SELECT st.repl_key, (st.content::jsonb) -> 0 AS c, (st.content::jsonb) -> 1 AS b,
             (st.content::jsonb) ->> 2 AS dv
        FROM ${staging} st
       WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = %(action)s) s
