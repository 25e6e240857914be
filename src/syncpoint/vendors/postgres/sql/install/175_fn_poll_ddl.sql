-- DDL by polling, where event triggers cannot be made (only a superuser may create them;
-- a table owner without superuser installs without them). Each tick runs this first, in a
-- transaction of its own: every watched table's catalog shape is compared with the shape
-- capture last saw (as the event triggers do when the DDL happens, here at the next tick):
--   table gone:            a DROP record (oldcontent: the last shape), status DROPPED;
--   shape changed:         an ALTER record (renames are followed by oid), capture
--                          function and triggers made again for the new shape;
--   dropped table back:    a CREATE record, capture made for the new table;
--   partitions made, attached or detached (a partitioned table's shape is the same):
--                          capture made again, which follows them (make_capture);
--   a trigger dropped or disabled by hand: a STOP record, status ERROR (stop_table);
--   a partition dropped that may have held rows: the same (partitions_check).
-- One row per event is returned: the caller captures again, after the record, the rows that
-- the old triggers captured since the last tick (ALTER) or that no trigger saw (CREATE).
-- SECURITY DEFINER: it writes the queue and makes capture functions owned by the installer.
CREATE OR REPLACE FUNCTION ${schema}.${fn_poll}()
RETURNS TABLE (o_id integer, o_action text, o_schema text, o_table text, o_version integer,
               o_key text[], o_old_schema text, o_old_table text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    t        record;
    v_shape  jsonb;
    v_rel    oid;
    v_action text;
    v_loc    text;
    v_sid    text;
    v_k      bigint;
    v_at     timestamptz := clock_timestamp();
    v_why    text;
BEGIN
    SELECT location, stream_id INTO v_loc, v_sid FROM ${schema}.${service};
    FOR t IN SELECT * FROM ${schema}.${tables} ORDER BY id FOR UPDATE LOOP
        v_action := NULL;
        v_shape := NULL;
        v_rel := t.relid;
        IF t.relid IS NOT NULL THEN
            IF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = t.relid) THEN
                v_action := 'DROP';
            ELSE
                v_shape := ${schema}.${fn_shape}(t.relid);
                IF v_shape IS DISTINCT FROM t.shape THEN
                    v_action := 'ALTER';
                END IF;
            END IF;
        ELSIF t.status = 'DROPPED' THEN
            v_rel := to_regclass(format('%I.%I', t.schemaname, t.tablename));
            IF v_rel IS NOT NULL THEN
                v_action := 'CREATE';
                v_shape := ${schema}.${fn_shape}(v_rel);
            END IF;
        END IF;
        IF v_action IS NULL THEN
            CONTINUE WHEN t.status <> 'OK' OR t.relid IS NULL;
            IF (SELECT relkind FROM pg_class WHERE oid = t.relid) = 'p' AND (
                   EXISTS (SELECT 1 FROM ${schema}.${fresh} f WHERE f.tid = t.id)
                   OR EXISTS (SELECT 1 FROM pg_partition_tree(t.relid) p
                                JOIN pg_trigger g ON g.tgrelid = p.relid
                               WHERE p.isleaf AND p.relid <> t.relid
                                 AND g.tgname = t.trigger_name || '_new'
                                 AND g.tgenabled <> 'D')
                   OR EXISTS (SELECT 1 FROM pg_trigger g
                               WHERE g.tgfoid = to_regprocedure(format('%I.%I()', $lit{schema},
                                                                       t.trigger_name))
                                 AND g.tgrelid NOT IN (SELECT relid
                                                         FROM pg_partition_tree(t.relid)))) THEN
                BEGIN
                    PERFORM ${schema}.${fn_make}(t.id);
                EXCEPTION WHEN OTHERS THEN
                    -- a partition capture cannot put its triggers on (another owner, say):
                    -- its rows would go uncaptured
                    PERFORM ${schema}.${fn_stop}(t.id, 'capture cannot follow the partitions '
                                                 'made, attached or detached: ' || SQLERRM);
                    CONTINUE;
                END;
            END IF;
            v_why := ${schema}.${fn_gap}(t.id);
            IF v_why IS NOT NULL THEN
                PERFORM ${schema}.${fn_stop}(t.id, v_why);
            END IF;
            CONTINUE;
        END IF;
        v_k := nextval($lit{seq_q}::regclass);
        INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                       db_schema, db_action, content, oldcontent, version,
                                       captured_at)
        VALUES (v_k, v_sid || ':' || v_k, pg_current_xact_id(),
                coalesce(nullif(current_setting($lit{origin_guc}, true), ''), v_loc),
                t.tablename, current_database(), t.schemaname, v_action,
                CASE WHEN v_action = 'ALTER'
                     THEN ${schema}.${fn_added}(v_rel, v_shape, t.shape)::text
                     ELSE v_shape::text END,
                CASE WHEN v_action = 'CREATE' THEN NULL ELSE t.shape::text END,
                t.version + 1, v_at);
        INSERT INTO ${schema}.${ddl_log} (repl_key, trans_key, db_action, db_schema, tablename,
                                          version, captured_at)
        VALUES (v_k, pg_current_xact_id(), v_action, t.schemaname, t.tablename, t.version + 1,
                v_at);
        IF v_action = 'DROP' THEN
            UPDATE ${schema}.${tables}
               SET version = version + 1, relid = NULL, status = 'DROPPED', key_attnums = NULL,
                   reason = 'the table was dropped'
             WHERE id = t.id;
            CONTINUE;
        END IF;
        UPDATE ${schema}.${tables}
           SET version = version + 1, relid = v_rel, shape = v_shape,
               schemaname = v_shape ->> 'schema', tablename = v_shape ->> 'table',
               key_attnums = CASE WHEN v_action = 'CREATE' THEN NULL ELSE key_attnums END
         WHERE id = t.id;
        BEGIN
            PERFORM ${schema}.${fn_make}(t.id);
        EXCEPTION WHEN OTHERS THEN
            -- the DDL is done already (an event trigger would have refused it): the table's
            -- status says why its capture stopped, and its rounds stop on it
            UPDATE ${schema}.${tables} SET status = 'ERROR', reason = SQLERRM WHERE id = t.id;
        END;
        RETURN QUERY SELECT t.id, v_action, v_shape ->> 'schema', v_shape ->> 'table',
                            t.version + 1,
                            coalesce(t.key_columns, ARRAY(
                                SELECT c ->> 'name'
                                  FROM jsonb_array_elements(v_shape -> 'columns') c
                                 WHERE c ->> 'pk' IS NOT NULL
                                 ORDER BY (c ->> 'pk')::int)),
                            t.schemaname::text, t.tablename::text;
    END LOOP;
    -- a partition dropped since the last tick (117_fn_parts.sql)
    PERFORM ${schema}.${fn_parts}(false);
END
$fn$
