-- The row records of a window of a table under conflict resolution, for Spark: the plain
-- read, with content and oldcontent each made a triple [row, befores, delete version].
-- befores: per version column, the versions the window's changes of the key made here
-- changed that group from (a site whose version is one of them takes the change without a
-- conflict; changes from elsewhere applied here in between are not this window's). The
-- delete version is the one the local delete wrote to the tombstones (time|location).
SELECT r.repl_key, r.db_action,
       json_build_array(r.content::json, r.sp_before::json, r.sp_dv)::text AS content,
       json_build_array(r.oldcontent::json, r.sp_before::json, r.sp_dv)::text AS oldcontent,
       r.dbid, r.sp_key, r.sp_old_key
FROM (
    SELECT g.*, $raw{befores} AS sp_before,
           CASE WHEN g.db_action = 'DELETE' THEN
               (SELECT tb.version FROM ${tombstones} tb
                WHERE tb.table_name = $lit{table} AND tb.key = g.sp_old_key
                  AND tb.kv = (g.oldcontent::json ->> $lit{kv})::bigint)
           END AS sp_dv
    FROM ($raw{read}) g
    WINDOW w AS (PARTITION BY CASE WHEN g.db_action = 'DELETE' THEN g.sp_old_key
                                   ELSE g.sp_key END)
) r
