-- A target without a unique index on the key: the rows having the key of a net upsert go
-- first (the insert then leaves exactly one row per key).
WITH s AS MATERIALIZED (
    SELECT st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = 'U'
)
DELETE FROM $raw{target} t USING (SELECT $raw{values} FROM s) d WHERE $raw{match}
