-- Two source keys of mixed_keys.sql that are one key in the target's affinities: ON
-- CONFLICT would merge them into one row.
SELECT min(sp_raw), max(sp_raw) FROM temp.${spare} GROUP BY $raw{columns}
HAVING count(DISTINCT sp_raw) > 1
LIMIT 1
