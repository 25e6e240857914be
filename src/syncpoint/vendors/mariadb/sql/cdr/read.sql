-- The row records of a window of a table under conflict resolution, for Spark: the plain
-- read, with content and oldcontent each made a triple [row, befores, delete version].
-- befores: per version column, the versions the window's changes of the key made here
-- changed that group from (a site whose version is one of them takes the change without a
-- conflict; changes from elsewhere applied here in between are not this window's). The
-- delete version is the one the local delete wrote to the tombstones (time|location).
-- The origin: where the records' changes were first made; when a key's records of the
-- window come from several (a ring forwards changes of others), all of them carry the
-- one nearest this reader (see CdrSite.read_query).
-- (GROUP_CONCAT is no window function here: the befores are grouped and joined back.)
SELECT r.repl_key, r.db_action,
       CONCAT('[', COALESCE(r.content, 'null'), ',', r.sp_before, ',',
              COALESCE(JSON_QUOTE(r.sp_dv), 'null'), ']') AS content,
       CONCAT('[', COALESCE(r.oldcontent, 'null'), ',', r.sp_before, ',',
              COALESCE(JSON_QUOTE(r.sp_dv), 'null'), ']') AS oldcontent,
       r.sp_origin AS dbid, r.sp_key, r.sp_old_key
FROM (
    SELECT g.*, b.sp_before,
           CASE WHEN g.db_action = 'DELETE' THEN
               (SELECT tb.version FROM ${tombstones} tb
                WHERE tb.table_name = $lit{table} AND tb.`key` = g.sp_old_key
                  AND tb.kv = JSON_VALUE(g.oldcontent, $lit{kv}))
           END AS sp_dv,
           $raw{origin} AS sp_origin
    FROM ($raw{read}) g
    JOIN (SELECT CASE WHEN g.db_action = 'DELETE' THEN g.sp_old_key ELSE g.sp_key END AS sp_part,
                 $raw{befores} AS sp_before
            FROM ($raw{read}) g
           GROUP BY sp_part) b
      ON b.sp_part = CASE WHEN g.db_action = 'DELETE' THEN g.sp_old_key ELSE g.sp_key END
) r
