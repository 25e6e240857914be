INSERT INTO ${tmp} ($raw{columns})
SELECT $raw{values} FROM ${staging} s
WHERE s.round_id = %(round_id)s AND s.tbl = %(tbl)s AND s.action = 'D'
