-- Incoming deletes of a table under conflict resolution. x: the deleted row as it was at
-- its origin (its key version and versions), the row before the window's first change of
-- the key, and the delete's own version.
-- 1. Record the conflicts: the local row is a newer incarnation, or it changed since.
WITH s AS MATERIALIZED (
    SELECT st.repl_key, (st.content::jsonb)->0 AS c, (st.content::jsonb)->1 AS b,
           coalesce((st.content::jsonb)->>2, '') AS dv
    FROM $raw{staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = $raw{action}
), x AS MATERIALIZED (SELECT s.repl_key, s.c, s.b, s.dv, $raw{values} FROM s)
INSERT INTO $raw{conflicts} (table_name, key, column_group, local_row, local_version,
                             remote_row, remote_version, resolution, winner)
SELECT %(table)s, $raw{key_text}, '*', row_to_json(t)::text, $raw{newest_l}, x.c::text, x.dv,
       %(rule)s,
       CASE WHEN t.$raw{kv} = $raw{kv_r} AND x.dv COLLATE "C" $raw{op} $raw{newest_l}
            THEN 'remote' ELSE 'local' END
FROM x JOIN $raw{target} t ON $raw{match}
WHERE t.$raw{kv} > $raw{kv_r} OR (t.$raw{kv} = $raw{kv_r} AND $raw{changed})
---
-- 2. Tombstones of the deletes that take effect (and of deletes of keys not here).
WITH s AS MATERIALIZED (
    SELECT st.repl_key, (st.content::jsonb)->0 AS c, (st.content::jsonb)->1 AS b,
           coalesce((st.content::jsonb)->>2, '') AS dv
    FROM $raw{staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = $raw{action}
), x AS MATERIALIZED (SELECT s.repl_key, s.c, s.b, s.dv, $raw{values} FROM s)
INSERT INTO $raw{tombstones} (table_name, key, kv, version)
SELECT %(table)s, $raw{key_text}, $raw{kv_r}, x.dv
FROM x LEFT JOIN $raw{target} t ON $raw{match}
WHERE t.$raw{kv} IS NULL OR t.$raw{kv} < $raw{kv_r}
   OR (t.$raw{kv} = $raw{kv_r} AND (NOT $raw{changed} OR x.dv COLLATE "C" $raw{op} $raw{newest_l}))
ON CONFLICT (table_name, key, kv) DO NOTHING
---
-- 3. The deletes that take effect.
WITH s AS MATERIALIZED (
    SELECT st.repl_key, (st.content::jsonb)->0 AS c, (st.content::jsonb)->1 AS b,
           coalesce((st.content::jsonb)->>2, '') AS dv
    FROM $raw{staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = $raw{action}
), x AS MATERIALIZED (SELECT s.repl_key, s.c, s.b, s.dv, $raw{values} FROM s)
DELETE FROM $raw{target} t USING x
WHERE $raw{match} AND (t.$raw{kv} < $raw{kv_r}
   OR (t.$raw{kv} = $raw{kv_r} AND (NOT $raw{changed} OR x.dv COLLATE "C" $raw{op} $raw{newest_l})))
