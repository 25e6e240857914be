-- The row records of a window of a table under conflict resolution, for Spark: the plain
-- read, with content and oldcontent each made a triple [row, before, delete version]:
-- before is the row as it was before the window's first change of the key (null when that
-- change is an insert: the version the changes were made from), the delete version is the
-- one the local delete wrote to the tombstones (time|location, found by key and key version).
SELECT r.repl_key, r.db_action,
       CONCAT('[', COALESCE(r.content, 'null'), ',', COALESCE(r.sp_before, 'null'), ',',
              COALESCE(JSON_QUOTE(r.sp_dv), 'null'), ']') AS content,
       CONCAT('[', COALESCE(r.oldcontent, 'null'), ',', COALESCE(r.sp_before, 'null'), ',',
              COALESCE(JSON_QUOTE(r.sp_dv), 'null'), ']') AS oldcontent,
       r.dbid, r.sp_key, r.sp_old_key
FROM (
    SELECT g.*,
           FIRST_VALUE(CASE WHEN g.db_action = 'INSERT' THEN NULL ELSE g.oldcontent END)
               OVER (PARTITION BY CASE WHEN g.db_action = 'DELETE' THEN g.sp_old_key
                                       ELSE g.sp_key END
                     ORDER BY g.repl_key) AS sp_before,
           CASE WHEN g.db_action = 'DELETE' THEN
               (SELECT tb.version FROM ${tombstones} tb
                WHERE tb.table_name = $lit{table} AND tb.`key` = g.sp_old_key
                  AND tb.kv = JSON_VALUE(g.oldcontent, $lit{kv}))
           END AS sp_dv
    FROM ($raw{read}) g
) r
