-- The column names the staged upserts of one window carry (several sources into one table:
-- a column the target lacks would be left out silently). A table under conflict resolution
-- stages [row, before, delete version]: the row's names are those of its first element.
SELECT DISTINCT j.key
  FROM ${staging} AS s,
       json_each(CASE WHEN json_type(s.content) = 'array' THEN json_extract(s.content, '$[0]')
                      ELSE s.content END) AS j
 WHERE s.round_id = ? AND s.tbl = ? AND s.action = 'U'
