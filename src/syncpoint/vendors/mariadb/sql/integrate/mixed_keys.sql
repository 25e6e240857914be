-- Two keys the window upserts (every origin's part) as two source keys, of another kind
-- than the target key's (a text '01' and '1', a number 1.0 and 1 into an INT), that the
-- target holds as one: ON DUPLICATE KEY UPDATE would merge them into one row. The keys
-- are converted to the key columns' own types by assignment, as the upsert converts them,
-- each beside the source's text of it (declared by the CREATE: an ALTER TABLE, even of a
-- temporary table, would commit the round's transaction).
DROP TEMPORARY TABLE IF EXISTS ${spare}
---
CREATE TEMPORARY TABLE ${spare} (sp_raw LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin)
ENGINE=InnoDB SELECT $raw{columns} FROM $raw{target} LIMIT 0
---
INSERT INTO ${spare} ($raw{columns}, sp_raw)
SELECT $raw{values}, $raw{raw} FROM ${staging} s
WHERE s.round_id = %(round_id)s AND s.tbl BETWEEN %(spare_lo)s AND %(spare_hi)s
  AND s.action = 'U'
---
SELECT MIN(sp_raw), MAX(sp_raw) FROM ${spare} GROUP BY $raw{columns}
HAVING COUNT(DISTINCT sp_raw) > 1
LIMIT 1
