-- The column names the staged upserts of one window carry (several sources into one table:
-- a column the target lacks would be left out silently).
SELECT DISTINCT j.key FROM ${staging} AS s, json_each(s.content) AS j
 WHERE s.round_id = ? AND s.tbl = ? AND s.action = 'U'
