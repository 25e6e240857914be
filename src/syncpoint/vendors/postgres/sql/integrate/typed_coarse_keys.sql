-- coarse_keys.sql over a window's typed staging (its keys cast to the key columns' types
-- as the upsert casts them).
WITH u AS MATERIALIZED (
    SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = 'U'
), d AS MATERIALIZED (
    SELECT $raw{values} FROM $raw{staging} s WHERE s.sp_action = 'D'
)
(SELECT $raw{old_text}, $raw{new_text} FROM $raw{target} t JOIN u ON $raw{spare}
  WHERE ($raw{differs}) AND NOT EXISTS (SELECT 1 FROM d WHERE $raw{deleted})
  LIMIT 1)
UNION ALL
(SELECT min($raw{new_text}), max($raw{new_text}) FROM u GROUP BY $raw{group}
  HAVING count(DISTINCT ($raw{texts})) > 1
  LIMIT 1)
