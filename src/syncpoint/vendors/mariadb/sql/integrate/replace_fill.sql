-- The keys of the net upserts, for a target without a unique index on exactly the key.
INSERT INTO ${tmp} ($raw{columns})
SELECT $raw{values} FROM ${staging} s
WHERE s.round_id = %(round_id)s AND s.tbl = %(tbl)s AND s.action = 'U'
