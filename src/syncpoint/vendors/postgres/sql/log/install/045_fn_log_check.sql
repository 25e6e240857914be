-- What the DDL event triggers see as it happens, found at each tick where there are none
-- (a table owner without superuser), for what the log itself does not show:
--   a partition made or attached since (no TRUNCATE trigger yet) gets it; if it was
--     rewritten since it was made (TRUNCATE: pgoutput leaves a partition's TRUNCATE out when
--     it publishes through the root) or was attached holding rows (its columns are its own:
--     attislocal; those rows are in no log record), the table stops;
--   a table detached holding rows (its TRUNCATE trigger names the partitioned table)
--     stops that table: its rows left without a log record;
--   a table that left the publication, or lost its usable replica identity, stops;
--   a partition dropped that may have held rows stops its table (partitions_check);
--   an enum label a column's type had renamed (ALTER TYPE ... RENAME VALUE: every row
--     holding it changed, and the log has no record of it) stops the table; labels only
--     added are kept in the table's shape for the next comparison.
-- A stop is a STOP record and status ERROR (stop_table), with the reason.
CREATE OR REPLACE FUNCTION ${schema}.${fn_log_check}() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    t     record;
    r     record;
    v_why text;
    v_now jsonb;
    v_n   integer := 0;
BEGIN
    FOR r IN SELECT g.tgrelid::regclass::text AS name, w.id
               FROM pg_trigger g
               JOIN pg_class c ON c.oid = g.tgrelid
               JOIN ${schema}.${tables} w
                 ON g.tgnargs = 1 AND w.status = 'OK'
                AND w.relid::text = convert_from(rtrim(g.tgargs, '\x00'::bytea), 'UTF8')
              WHERE g.tgname = $lit{trg_part} AND NOT c.relispartition LOOP
        EXECUTE format('SELECT CASE WHEN EXISTS (SELECT 1 FROM %s) THEN %L END', r.name,
                       format('partition %s was detached holding rows, which are in no log '
                              'record', r.name))
           INTO v_why;
        IF v_why IS NOT NULL THEN
            PERFORM ${schema}.${fn_stop}(r.id, v_why);
            v_n := v_n + 1;
        END IF;
    END LOOP;
    FOR t IN SELECT * FROM ${schema}.${tables}
              WHERE status = 'OK' AND relid IS NOT NULL ORDER BY id FOR UPDATE LOOP
        CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = t.relid);
        v_why := NULL;
        IF NOT EXISTS (SELECT 1 FROM pg_publication_rel pr
                         JOIN pg_publication p ON p.oid = pr.prpubid
                        WHERE p.pubname = $lit{pub} AND pr.prrelid = t.relid) THEN
            v_why := format('%I.%I was taken out of publication %I: its changes are not in '
                            'the log capture reads any more', t.schemaname, t.tablename,
                            $lit{pub});
        END IF;
        IF v_why IS NULL THEN
            v_why := ${schema}.${fn_identity}(t.relid, t.key_columns);
            IF v_why IS NOT NULL THEN
                v_why := 'no usable replica identity any more (' || v_why || ')';
            END IF;
        END IF;
        IF v_why IS NULL THEN
            FOR r IN SELECT p.relid, p.relid::regclass::text AS name, c.relfilenode,
                            EXISTS (SELECT 1 FROM pg_attribute a
                                     WHERE a.attrelid = p.relid AND a.attnum > 0
                                       AND NOT a.attisdropped AND a.attislocal) AS attached
                       FROM pg_partition_tree(t.relid) p JOIN pg_class c ON c.oid = p.relid
                      WHERE p.isleaf AND p.relid <> t.relid
                        AND NOT EXISTS (SELECT 1 FROM pg_trigger g
                                         WHERE g.tgrelid = p.relid
                                           AND g.tgname = $lit{trg_part}) LOOP
                IF r.relfilenode <> r.relid THEN
                    v_why := format('partition %s was emptied or rewritten (TRUNCATE) before '
                                    'capture saw it', r.name);
                ELSIF r.attached THEN
                    EXECUTE format('SELECT CASE WHEN EXISTS (SELECT 1 FROM %s) THEN %L END',
                                   r.name, format('partition %s was attached holding rows, '
                                                  'which are in no log record', r.name))
                       INTO v_why;
                END IF;
                EXIT WHEN v_why IS NOT NULL;
            END LOOP;
            IF (SELECT relkind FROM pg_class WHERE oid = t.relid) = 'p' THEN
                PERFORM ${schema}.${fn_part_watch}(t.relid);
            END IF;
        END IF;
        IF v_why IS NULL THEN
            v_now := ${schema}.${fn_shape}(t.relid);
            SELECT 'enum labels renamed (' || string_agg(format('%s: %s gone', o ->> 'name',
                       (SELECT string_agg(quote_literal(x), ', ')
                          FROM jsonb_array_elements_text(o -> 'labels') x
                         WHERE NOT (n -> 'labels') ? x)), '; ')
                   || '): every row holding one changed, with no log record of it'
              INTO v_why
              FROM jsonb_array_elements(t.shape -> 'columns') o
              JOIN jsonb_array_elements(v_now -> 'columns') n ON n ->> 'name' = o ->> 'name'
             WHERE o ? 'labels' AND n ? 'labels'
               AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(o -> 'labels') x
                            WHERE NOT (n -> 'labels') ? x);
            IF v_why IS NULL AND v_now IS DISTINCT FROM t.shape THEN
                UPDATE ${schema}.${tables} SET shape = v_now WHERE id = t.id;
            END IF;
        END IF;
        IF v_why IS NOT NULL THEN
            PERFORM ${schema}.${fn_stop}(t.id, v_why);
            v_n := v_n + 1;
        END IF;
    END LOOP;
    -- a partition dropped since the last tick (install/117_fn_parts.sql)
    RETURN v_n + ${schema}.${fn_parts}(false);
END
$fn$
