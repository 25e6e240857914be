-- Conflicts decided at this location per table: how many, and the latest one.
SELECT c.table_name, count(*) OVER (PARTITION BY c.table_name), c.key, c.column_group,
       c.winner, c.resolution, c.decided_at
FROM ${conflicts} c
ORDER BY c.table_name, c.id DESC
