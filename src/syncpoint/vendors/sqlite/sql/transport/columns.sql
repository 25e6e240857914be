-- Columns of a transport table: name, declared type, nullable, position in the key.
-- Bound as (schema or NULL, table), like the other vendors' version of this query.
WITH wanted (s, t) AS (SELECT ?, ?)
SELECT i.name, i.type, i."notnull" = 0, NULLIF(i.pk, 0)
FROM wanted, pragma_table_info(wanted.t, COALESCE(wanted.s, 'main')) AS i
ORDER BY i.cid
