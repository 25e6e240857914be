-- Net upserts of one window in position order; MariaDB converts each JSON value on
-- assignment under STRICT_ALL_TABLES, and the caller turns any warning into an error.
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM ${staging} s
WHERE s.round_id = %(round_id)s AND s.tbl = %(tbl)s AND s.action = 'U'
ORDER BY s.repl_key
ON DUPLICATE KEY UPDATE $raw{on_conflict}
