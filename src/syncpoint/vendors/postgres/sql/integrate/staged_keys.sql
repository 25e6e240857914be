-- The column names the staged upserts of one window carry (several sources into one table:
-- a column the target lacks would be left out silently). A table under conflict resolution
-- stages [row, before, delete version]: the row's names are those of its first element.
SELECT DISTINCT k
  FROM ${staging} AS s,
       jsonb_object_keys(CASE WHEN jsonb_typeof(s.content::jsonb) = 'array'
                              THEN (s.content::jsonb) -> 0 ELSE s.content::jsonb END) AS k
 WHERE s.round_id = %s AND s.tbl = %s AND s.action = 'U'
