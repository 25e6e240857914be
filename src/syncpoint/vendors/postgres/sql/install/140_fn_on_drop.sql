-- sql_drop: DROP of a watched table (also through DROP SCHEMA ... CASCADE) becomes a DROP
-- record (oldcontent: the last shape), version + 1; the table's row stays, status DROPPED,
-- until a table of that name is created again or the table leaves the channel file. A
-- dropped index or constraint has the captures that depend on a unique key made again.
CREATE OR REPLACE FUNCTION ${schema}.${fn_on_drop}() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r     record;
    t     record;
    v_loc text;
    v_sid text;
    v_k   bigint;
    v_at  timestamptz := clock_timestamp();
    v_why text;
BEGIN
    IF to_regclass($lit{tables_q}) IS NULL OR to_regclass($lit{items_q}) IS NULL THEN
        RETURN;
    END IF;
    FOR r IN SELECT d.objid FROM pg_event_trigger_dropped_objects() d
              WHERE d.object_type = 'table' LOOP
        SELECT * INTO t FROM ${schema}.${tables} WHERE relid = r.objid FOR UPDATE;
        CONTINUE WHEN NOT FOUND;
        SELECT location, stream_id INTO v_loc, v_sid FROM ${schema}.${service};
        v_k := nextval($lit{seq_q}::regclass);
        INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                       db_schema, db_action, content, oldcontent, version,
                                       captured_at)
        VALUES (v_k, v_sid || ':' || v_k, pg_current_xact_id(),
                coalesce(nullif(current_setting($lit{origin_guc}, true), ''), v_loc),
                t.tablename, current_database(), t.schemaname, 'DROP',
                NULL, t.shape::text, t.version + 1, v_at);
        INSERT INTO ${schema}.${ddl_log} (repl_key, trans_key, db_action, db_schema, tablename,
                                          version, captured_at)
        VALUES (v_k, pg_current_xact_id(), 'DROP', t.schemaname, t.tablename, t.version + 1,
                v_at);
        UPDATE ${schema}.${tables}
           SET version = version + 1, relid = NULL, status = 'DROPPED', key_attnums = NULL,
               reason = 'the table was dropped'
         WHERE id = t.id;
    END LOOP;
    -- A partition dropped holding rows (ddl_start noted which might): they left the
    -- partitioned table without a record, and stay at the targets; the table stops.
    FOR r IN SELECT d.objid, d.object_identity, split_part(h.x, ':', 2)::integer AS tid
               FROM pg_event_trigger_dropped_objects() d
               JOIN unnest(string_to_array(coalesce(current_setting(
                        $lit{origin_guc} || '_held', true), ''), ',')) AS h(x)
                 ON split_part(h.x, ':', 1) = d.objid::text
              WHERE d.object_type = 'table' LOOP
        IF EXISTS (SELECT 1 FROM ${schema}.${tables} w WHERE w.id = r.tid AND w.status = 'OK')
        THEN
            PERFORM ${schema}.${fn_stop}(r.tid, format(
                'partition %s was dropped holding rows, which are in no change record and '
                'stay at the targets (detach a partition before dropping it)',
                r.object_identity));
        END IF;
    END LOOP;
    -- A capture trigger dropped by hand: the table stops where its capture broke.
    IF EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() d
                WHERE d.object_type = 'trigger') THEN
        FOR t IN SELECT w.id FROM ${schema}.${tables} w WHERE w.status = 'OK' LOOP
            v_why := ${schema}.${fn_gap}(t.id);
            IF v_why IS NOT NULL THEN
                PERFORM ${schema}.${fn_stop}(t.id, v_why);
            END IF;
        END LOOP;
    END IF;
    -- A dropped unique index or constraint may have been what let a table's UPDATE be
    -- captured row by row (see make_capture): its capture is made again, and decides anew.
    IF EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() d
                WHERE d.object_type IN ('index', 'table constraint')) THEN
        FOR t IN SELECT w.id
                   FROM ${schema}.${tables} w
                   JOIN pg_trigger tg
                     ON tg.tgrelid = w.relid AND tg.tgname = w.trigger_name || '_upd'
                  WHERE w.status = 'OK' AND tg.tgtype::integer & 1 = 1
                    -- a changed shape is the DDL end's to record and regenerate
                    AND ${schema}.${fn_shape}(w.relid) IS NOT DISTINCT FROM w.shape LOOP
            PERFORM ${schema}.${fn_make}(t.id);
        END LOOP;
    END IF;
END
$fn$
