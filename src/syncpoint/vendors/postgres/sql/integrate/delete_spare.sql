-- Net deletes of one window whose key can be equal at the target while its text differs
-- (citext, a nondeterministic collation, numeric 1.0 and 1.00, ...). The round nets by the
-- text, so one row's class can bring the delete of one text and the upsert of another;
-- the upsert is always the class's last change, made already: a target row equal to a key
-- the window upserts is that row, and stays.
WITH s AS MATERIALIZED (
    SELECT st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = 'D'
), u AS MATERIALIZED (
    SELECT st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = 'U'
)
DELETE FROM $raw{target} t USING (SELECT $raw{values} FROM s) d
 WHERE $raw{match}
   AND NOT EXISTS (SELECT 1 FROM (SELECT $raw{values} FROM u s) u WHERE $raw{spare})
