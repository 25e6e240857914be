-- Net upserts of one window, in position order (a row referring to an earlier row of the
-- same table finds it). The staged JSON is parsed once per row.
WITH s AS MATERIALIZED (
    SELECT st.repl_key, st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = 'U'
)
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM s ORDER BY s.repl_key
ON CONFLICT ($raw{key}) DO $raw{on_conflict}
