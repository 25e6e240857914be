-- The row records of a window of a table under conflict resolution, for Spark: the plain
-- read, with content and oldcontent each made a triple [row, befores, delete version].
-- befores: per version column, the versions the window's changes of the key made here
-- changed that group from (a site whose version is one of them takes the change without a
-- conflict; changes from elsewhere applied here in between are not this window's). The
-- delete version is the one the local delete wrote to the tombstones (time|location).
-- The origin: where the records' changes were first made; when a key's records of the
-- window come from several (a ring forwards changes of others), all of them carry the
-- one nearest this reader (see CdrSite.read_query).
SELECT r.repl_key, r.db_action,
       '[' || coalesce(r.content, 'null') || ',' || r.sp_before || ','
           || coalesce(json_quote(r.sp_dv), 'null') || ']' AS content,
       '[' || coalesce(r.oldcontent, 'null') || ',' || r.sp_before || ','
           || coalesce(json_quote(r.sp_dv), 'null') || ']' AS oldcontent,
       r.sp_origin AS dbid, r.sp_key, r.sp_old_key
FROM (
    SELECT g.*, $raw{befores} AS sp_before,
           CASE WHEN g.db_action = 'DELETE' THEN
               (SELECT tb.version FROM ${tombstones} tb
                WHERE tb.table_name = $lit{table} AND tb.key = g.sp_old_key
                  AND tb.kv = json_extract(g.oldcontent, $lit{kv}))
           END AS sp_dv,
           $raw{origin} AS sp_origin
    FROM ($raw{read}) g
    WINDOW w AS (PARTITION BY CASE WHEN g.db_action = 'DELETE' THEN g.sp_old_key
                                   ELSE g.sp_key END)
) r
