-- The column names the staged upserts of one window carry (several sources into one table:
-- a column the target lacks would be left out silently). A table under conflict resolution
-- stages [row, before, delete version]: the row's names are those of its first element.
SELECT DISTINCT j.k
  FROM ${staging} AS s,
       JSON_TABLE(JSON_KEYS(IF(JSON_TYPE(s.content) = 'ARRAY', JSON_EXTRACT(s.content, '$[0]'),
                               s.content)),
                  '$[*]' COLUMNS (k VARCHAR(2000) PATH '$')) AS j
 WHERE s.round_id = %s AND s.tbl = %s AND s.action = 'U'
