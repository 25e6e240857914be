-- Net upserts of one window into a target without a unique index on the key: the rows with
-- the key were deleted first (replace_delete), so this inserts each key once.
WITH s AS MATERIALIZED (
    SELECT st.repl_key, st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = 'U'
)
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM s ORDER BY s.repl_key
