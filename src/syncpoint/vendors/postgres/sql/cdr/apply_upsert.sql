-- Incoming inserts and updates of a table under conflict resolution (core/cdr.py has the
-- rules as a table). x: the window's staged rows, [row, before] parsed, values converted.
-- 1. Record the conflicts: a group both sides changed since the version the change was
--    made from, a change of an older incarnation, a change meeting a tombstone of its own
--    or a newer incarnation.
WITH s AS MATERIALIZED (
    SELECT st.repl_key, (st.content::jsonb)->0 AS c, (st.content::jsonb)->1 AS b
    FROM $raw{staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = $raw{action}
), x AS MATERIALIZED (SELECT s.repl_key, s.c, s.b, $raw{values} FROM s)
INSERT INTO $raw{conflicts} (table_name, key, column_group, local_row, local_version,
                             remote_row, remote_version, resolution, winner)
SELECT %(table)s, $raw{key_text}, g.grp, row_to_json(t)::text, g.l, x.c::text, g.r,
       %(rule)s, CASE WHEN g.r COLLATE "C" $raw{op} g.l COLLATE "C" THEN 'remote' ELSE 'local' END
FROM x JOIN $raw{target} t ON $raw{match}
CROSS JOIN LATERAL (VALUES $raw{groups_values}) AS g(grp, l, r, b)
WHERE $raw{kv_r} = t.$raw{kv} AND g.r IS DISTINCT FROM g.l AND g.l IS DISTINCT FROM g.b
  AND g.r IS DISTINCT FROM g.b
UNION ALL
SELECT %(table)s, $raw{key_text}, '*', row_to_json(t)::text, t.$raw{kv}::text, x.c::text,
       $raw{kv_r}::text, %(rule)s, 'local'
FROM x JOIN $raw{target} t ON $raw{match}
WHERE $raw{kv_r} < t.$raw{kv}
UNION ALL
SELECT %(table)s, $raw{key_text}, '*', NULL, tb.version, x.c::text, $raw{newest_r}, %(rule)s,
       CASE WHEN tb.kv = $raw{kv_r} AND $raw{newest_r} $raw{op} tb.version COLLATE "C"
            THEN 'remote' ELSE 'local' END
FROM x JOIN LATERAL (SELECT tb.kv, tb.version FROM $raw{tombstones} tb
                     WHERE tb.table_name = %(table)s AND tb.key = $raw{key_text}
                     ORDER BY tb.kv DESC LIMIT 1) tb ON true
WHERE tb.kv >= $raw{kv_r} AND NOT EXISTS (SELECT 1 FROM $raw{target} t WHERE $raw{match})
---
-- 2. Rows that exist: each group takes the incoming values where the rule says so; a
--    newer incarnation takes everything.
WITH s AS MATERIALIZED (
    SELECT st.repl_key, (st.content::jsonb)->0 AS c, (st.content::jsonb)->1 AS b
    FROM $raw{staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = $raw{action}
), x AS MATERIALIZED (SELECT s.repl_key, s.c, s.b, $raw{values} FROM s)
UPDATE $raw{target} t SET $raw{sets}
FROM x WHERE $raw{match} AND $raw{kv_r} >= t.$raw{kv}
---
-- 3. Keys without a row: inserted unless a tombstone of the same incarnation wins by the
--    rule or one of a newer incarnation exists.
WITH s AS MATERIALIZED (
    SELECT st.repl_key, (st.content::jsonb)->0 AS c, (st.content::jsonb)->1 AS b
    FROM $raw{staging} st
    WHERE st.round_id = %(round_id)s AND st.tbl = %(tbl)s AND st.action = $raw{action}
), x AS MATERIALIZED (SELECT s.repl_key, s.c, s.b, $raw{values} FROM s)
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{column_values}
FROM x LEFT JOIN LATERAL (SELECT tb.kv, tb.version FROM $raw{tombstones} tb
                          WHERE tb.table_name = %(table)s AND tb.key = $raw{key_text}
                          ORDER BY tb.kv DESC LIMIT 1) tb ON true
WHERE NOT EXISTS (SELECT 1 FROM $raw{target} t WHERE $raw{match})
  AND (tb.kv IS NULL OR tb.kv < $raw{kv_r}
       OR (tb.kv = $raw{kv_r} AND $raw{newest_r} $raw{op} tb.version COLLATE "C"))
ORDER BY x.repl_key
