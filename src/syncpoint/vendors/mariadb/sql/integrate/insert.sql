-- Net upserts of one window into a target whose only unique index is not the key: the
-- rows with the key were deleted first (replace_fill, delete), so this inserts each key once.
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM ${staging} s
WHERE s.round_id = %(round_id)s AND s.tbl = %(tbl)s AND s.action = 'U'
ORDER BY s.repl_key
