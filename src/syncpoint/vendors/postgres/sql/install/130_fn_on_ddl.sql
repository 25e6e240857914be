-- ddl_command_end: CREATE/ALTER of a table this prefix watches becomes a DDL record, in
-- the same transaction and stream as the rows. Only this prefix's tables are looked at, so
-- the event triggers of several prefixes in one database do not interfere.
--   ALTER of a watched table (by oid; renames are followed): when its shape changed, an
--     ALTER record under the name it had (content: new shape, oldcontent: previous shape),
--     version + 1, and the capture function regenerated for the new shape. If it cannot
--     be (the key is gone), the DDL fails: capture would otherwise stop silently.
--   CREATE of a table with the name of a dropped watched table: a CREATE record, version
--     + 1, capture resumes (status ERROR with the reason if the new table has no key).
-- SECURITY DEFINER: any user's DDL on a watched table must be able to write the queue and
-- regenerate the capture function owned by the installer.
CREATE OR REPLACE FUNCTION ${schema}.${fn_on_ddl}() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r       record;
    t       record;
    v_shape jsonb;
    v_loc   text;
    v_sid   text;
    v_k     bigint;
    v_at    timestamptz := clock_timestamp();
    v_why   text;
BEGIN
    IF to_regclass($lit{tables_q}) IS NULL OR to_regclass($lit{items_q}) IS NULL THEN
        RETURN;  -- a partly removed install: let the DDL through
    END IF;
    FOR r IN SELECT * FROM ${schema}.${fn_ddl_tables}() LOOP
        SELECT * INTO t FROM ${schema}.${tables} WHERE relid = r.objid FOR UPDATE;
        IF FOUND THEN
            v_shape := ${schema}.${fn_shape}(r.objid);
            IF v_shape IS NOT DISTINCT FROM t.shape THEN
                -- a partition attached or detached: the partitions' triggers follow
                IF t.status = 'OK' AND (SELECT relkind FROM pg_class WHERE oid = r.objid) = 'p'
                   AND coalesce(current_setting($lit{origin_guc} || '_making', true), '') = '' THEN
                    PERFORM ${schema}.${fn_make}(t.id);
                END IF;
                -- a capture trigger disabled by hand (ALTER TABLE ... DISABLE TRIGGER)
                v_why := ${schema}.${fn_gap}(t.id);
                IF v_why IS NOT NULL THEN
                    PERFORM ${schema}.${fn_stop}(t.id, v_why);
                END IF;
                CONTINUE;
            END IF;
            SELECT location, stream_id INTO v_loc, v_sid FROM ${schema}.${service};
            v_k := nextval($lit{seq_q}::regclass);
            INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                           db_schema, db_action, content, oldcontent, version,
                                           captured_at)
            VALUES (v_k, v_sid || ':' || v_k, pg_current_xact_id(),
                    coalesce(nullif(current_setting($lit{origin_guc}, true), ''), v_loc),
                    t.tablename, current_database(), t.schemaname, 'ALTER',
                    ${schema}.${fn_added}(r.objid, v_shape, t.shape)::text, t.shape::text,
                    t.version + 1, v_at);
            INSERT INTO ${schema}.${ddl_log} (repl_key, trans_key, db_action, db_schema,
                                               tablename, version, captured_at)
            VALUES (v_k, pg_current_xact_id(), 'ALTER', t.schemaname, t.tablename,
                    t.version + 1, v_at);
            UPDATE ${schema}.${tables}
               SET version = version + 1, schemaname = r.schema_name, tablename = r.table_name,
                   shape = v_shape
             WHERE id = t.id;
            IF t.status = 'OK' THEN
                PERFORM ${schema}.${fn_make}(t.id);
            ELSE
                BEGIN
                    PERFORM ${schema}.${fn_make}(t.id);
                EXCEPTION WHEN OTHERS THEN
                    UPDATE ${schema}.${tables} SET status = 'ERROR', reason = SQLERRM
                     WHERE id = t.id;
                END;
            END IF;
        ELSE
            -- a partition made under a watched partitioned table: its triggers
            FOR t IN SELECT w.* FROM ${schema}.${tables} w
                      WHERE w.status = 'OK'
                        AND coalesce(current_setting($lit{origin_guc} || '_making', true), '') = ''
                        AND w.relid IN (
                            SELECT a.relid FROM pg_partition_ancestors(r.objid) a
                             WHERE a.relid <> r.objid) LOOP
                PERFORM ${schema}.${fn_make}(t.id);
            END LOOP;
            SELECT * INTO t FROM ${schema}.${tables}
             WHERE relid IS NULL AND schemaname = r.schema_name AND tablename = r.table_name
               FOR UPDATE;
            CONTINUE WHEN NOT FOUND;
            v_shape := ${schema}.${fn_shape}(r.objid);
            SELECT location, stream_id INTO v_loc, v_sid FROM ${schema}.${service};
            v_k := nextval($lit{seq_q}::regclass);
            INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                           db_schema, db_action, content, oldcontent, version,
                                           captured_at)
            VALUES (v_k, v_sid || ':' || v_k, pg_current_xact_id(),
                    coalesce(nullif(current_setting($lit{origin_guc}, true), ''), v_loc),
                    t.tablename, current_database(), t.schemaname, 'CREATE',
                    v_shape::text, NULL, t.version + 1, v_at);
            INSERT INTO ${schema}.${ddl_log} (repl_key, trans_key, db_action, db_schema,
                                               tablename, version, captured_at)
            VALUES (v_k, pg_current_xact_id(), 'CREATE', t.schemaname, t.tablename,
                    t.version + 1, v_at);
            -- a new table: its attnums say nothing of the old one's key
            UPDATE ${schema}.${tables}
               SET version = version + 1, relid = r.objid, shape = v_shape, key_attnums = NULL
             WHERE id = t.id;
            BEGIN
                PERFORM ${schema}.${fn_make}(t.id);
            EXCEPTION WHEN OTHERS THEN
                UPDATE ${schema}.${tables} SET status = 'ERROR', reason = SQLERRM
                 WHERE id = t.id;
            END;
        END IF;
    END LOOP;
END
$fn$
