-- Net deletes of one window whose key can be equal at the target while its text differs
-- (citext, a nondeterministic collation, numeric 1.0 and 1.00, ...). The round nets by the
-- text, so one row's class can bring the delete of one text and the upsert of another;
-- the upsert is always the class's last change, made already (by whichever origin's part
-- of the window holds it): a target row equal to a key the window upserts is that row,
-- and stays. The rows to delete are those the deletes'
-- keys find less those the upserts' keys find, each found by the key's index and the set
-- difference hashed or sorted: an anti-join to the upserts, planned on a staging without
-- statistics, scanned them once per deleted row.
WITH s AS MATERIALIZED (
    SELECT st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = 'D'
), u AS MATERIALIZED (
    SELECT st.content::jsonb AS c FROM ${staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl BETWEEN %(spare_lo)s AND %(spare_hi)s
      AND st.action = 'U'
)
DELETE FROM $raw{target} t
 USING (SELECT $raw{keys} FROM $raw{target} t JOIN (SELECT $raw{values} FROM s) d ON $raw{match}
        EXCEPT
        SELECT $raw{keys} FROM $raw{target} t JOIN (SELECT $raw{values} FROM u s) u ON $raw{spare}
       ) x
 WHERE $raw{found}
