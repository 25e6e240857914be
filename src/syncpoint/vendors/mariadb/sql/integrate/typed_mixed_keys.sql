-- mixed_keys.sql over a window's typed staging, which holds one row a source key (netted
-- by the source's text of the key): two upserts of one key here are two source keys.
SELECT $raw{shown}, COUNT(*) FROM $raw{staging} s
WHERE s.sp_action = 'U'
GROUP BY $raw{columns}
HAVING COUNT(*) > 1
LIMIT 1
