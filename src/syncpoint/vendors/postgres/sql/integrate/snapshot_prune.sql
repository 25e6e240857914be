-- The target rows of a snapshot chunk's range whose key the chunk did not copy: the source
-- had deleted them when the chunk was read (docs/internals.md, "Snapshot: the hand-over").
-- Keys compared as delete.sql compares them, an anti-join hashed or sorted over the keys.
WITH s AS MATERIALIZED (
    SELECT st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = 'U'
)
DELETE FROM $raw{target} t
 WHERE ($raw{range})
   AND NOT EXISTS (SELECT 1 FROM (SELECT $raw{values} FROM s) d WHERE $raw{match})
