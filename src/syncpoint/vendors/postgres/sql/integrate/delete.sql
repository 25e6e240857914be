WITH s AS MATERIALIZED (
    SELECT st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = 'D'
)
DELETE FROM $raw{target} t USING (SELECT $raw{values} FROM s) d WHERE $raw{match}
