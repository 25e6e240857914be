-- The column names the staged upserts of one window carry (several sources into one table:
-- a column the target lacks would be left out silently).
SELECT DISTINCT k FROM ${staging} AS s, jsonb_object_keys(s.content::jsonb) AS k
 WHERE s.round_id = %s AND s.tbl = %s AND s.action = 'U'
