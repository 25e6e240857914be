-- ddl_command_end under log capture: a change of a watched table's shape becomes a
-- transactional logical message carrying the DDL record the trigger capture would write
-- (the decoder writes it into the queue at its place among the transaction's changes, so
-- DDL and rows stay in commit order). Same cases as the trigger capture's function:
--   ALTER of a watched table (by oid; renames followed): an ALTER record under the name it
--     had, version + 1; if the table lost its usable replica identity it leaves the
--     publication (its UPDATEs would fail) and its status becomes ERROR with the reason;
--   CREATE of a table with the name of a dropped watched table: a CREATE record, version +
--     1, the table enters the publication (if its replica identity is usable);
--   a partition created or attached under a watched partitioned table: its TRUNCATE
--     trigger (see fn_part_watch).
-- Same names as the trigger capture's function: uninstall removes either.
CREATE OR REPLACE FUNCTION ${schema}.${fn_on_ddl}() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r       record;
    t       record;
    x       record;
    v_shape jsonb;
    v_why   text;
    v_rows  boolean;
BEGIN
    IF to_regclass($lit{tables_q}) IS NULL OR to_regclass($lit{log_state_q}) IS NULL
       OR coalesce(current_setting($lit{origin_guc} || '_making', true), '') <> '' THEN
        RETURN;  -- a partly removed install, or partition_watch's own ALTERs
    END IF;
    FOR r IN SELECT * FROM ${schema}.${fn_ddl_tables}() LOOP
        SELECT * INTO t FROM ${schema}.${tables} WHERE relid = r.objid FOR UPDATE;
        IF FOUND THEN
            v_shape := ${schema}.${fn_shape}(r.objid);
            IF v_shape IS DISTINCT FROM t.shape THEN
                PERFORM pg_logical_emit_message(true, $lit{msg_ddl}, json_build_object(
                    'action', 'ALTER', 'id', t.id, 'relid', r.objid,
                    'schema', t.schemaname, 'table', t.tablename,
                    'new_schema', r.schema_name, 'new_table', r.table_name,
                    'content', ${schema}.${fn_added}(r.objid, v_shape, t.shape)::text,
                    'oldcontent', t.shape::text,
                    'version', t.version + 1)::text);
                UPDATE ${schema}.${tables}
                   SET version = version + 1, schemaname = r.schema_name, tablename = r.table_name,
                       shape = v_shape
                 WHERE id = t.id;
            END IF;
            IF (SELECT relkind FROM pg_class WHERE oid = r.objid) = 'p' THEN
                -- Rows that enter or leave with a partition are in no log record: a table
                -- attached holding rows, or detached holding rows, stops the table.
                v_why := NULL;
                FOR x IN SELECT p.relid::regclass::text AS name, 'attached' AS how
                           FROM pg_partition_tree(r.objid) p
                          WHERE p.isleaf AND p.relid <> r.objid
                            AND NOT EXISTS (SELECT 1 FROM pg_trigger g
                                             WHERE g.tgrelid = p.relid
                                               AND g.tgname = $lit{trg_part})
                          UNION ALL
                         SELECT g.tgrelid::regclass::text, 'detached'
                           FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
                          WHERE g.tgname = $lit{trg_part} AND NOT c.relispartition LOOP
                    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s)', x.name) INTO v_rows;
                    IF v_rows AND t.status = 'OK' THEN
                        v_why := format('partition %s was %s holding rows, which are in no '
                                        'log record', x.name, x.how);
                    END IF;
                END LOOP;
                PERFORM ${schema}.${fn_part_watch}(r.objid);  -- attached, detached
                IF v_why IS NOT NULL THEN
                    PERFORM pg_logical_emit_message(true, $lit{msg_ddl}, json_build_object(
                        'action', 'STOP', 'id', t.id, 'relid', r.objid,
                        'schema', r.schema_name, 'table', r.table_name,
                        'new_schema', r.schema_name, 'new_table', r.table_name,
                        'content', json_build_object('reason', v_why)::text,
                        'oldcontent', NULL, 'version', t.version)::text);
                    UPDATE ${schema}.${tables} SET status = 'ERROR', reason = v_why
                     WHERE id = t.id;
                    t.status := 'ERROR';
                END IF;
            END IF;
            v_why := ${schema}.${fn_identity}(r.objid, t.key_columns);
            IF v_why IS NOT NULL AND t.status = 'OK' THEN
                PERFORM pg_logical_emit_message(true, $lit{msg_ddl}, json_build_object(
                    'action', 'STOP', 'id', t.id, 'relid', r.objid,
                    'schema', r.schema_name, 'table', r.table_name,
                    'new_schema', r.schema_name, 'new_table', r.table_name,
                    'content', json_build_object('reason', 'no usable replica identity any '
                                                 'more (' || v_why || ')')::text,
                    'oldcontent', NULL, 'version', t.version)::text);
                EXECUTE format('ALTER PUBLICATION %I DROP TABLE %s', $lit{pub},
                               r.objid::regclass::text);
                UPDATE ${schema}.${tables}
                   SET status = 'ERROR',
                       reason = 'no usable replica identity any more (' || v_why
                                || '); give it one, then run syncpoint install and snapshot'
                 WHERE id = t.id;
            END IF;
        ELSE
            SELECT * INTO t FROM ${schema}.${tables}
             WHERE relid IS NULL AND schemaname = r.schema_name AND tablename = r.table_name
               FOR UPDATE;
            IF FOUND THEN
                v_shape := ${schema}.${fn_shape}(r.objid);
                PERFORM pg_logical_emit_message(true, $lit{msg_ddl}, json_build_object(
                    'action', 'CREATE', 'id', t.id, 'relid', r.objid,
                    'schema', t.schemaname, 'table', t.tablename,
                    'new_schema', r.schema_name, 'new_table', r.table_name,
                    'content', v_shape::text, 'oldcontent', NULL,
                    'version', t.version + 1)::text);
                v_why := ${schema}.${fn_identity}(r.objid, t.key_columns);
                UPDATE ${schema}.${tables}
                   SET version = version + 1, relid = r.objid, shape = v_shape,
                       key_attnums = NULL,
                       status = CASE WHEN v_why IS NULL THEN 'OK' ELSE 'ERROR' END,
                       reason = CASE WHEN v_why IS NOT NULL THEN
                                'no usable replica identity (' || v_why || ')' END
                 WHERE id = t.id;
                IF v_why IS NULL THEN
                    EXECUTE format('ALTER PUBLICATION %I ADD TABLE %s', $lit{pub},
                                   r.objid::regclass::text);
                    PERFORM ${schema}.${fn_part_watch}(r.objid);
                END IF;
            ELSE
                -- a partition made under a watched table: the watched table's partitions
                -- (this one among them) get their TRUNCATE trigger, in this transaction
                FOR x IN SELECT w.relid FROM ${schema}.${tables} w
                          WHERE w.relid IN (SELECT a.relid
                                              FROM pg_partition_ancestors(r.objid) a
                                             WHERE a.relid <> r.objid) LOOP
                    PERFORM ${schema}.${fn_part_watch}(x.relid);
                END LOOP;
            END IF;
        END IF;
    END LOOP;
END
$fn$
---
-- sql_drop under log capture: DROP of a watched table becomes a DROP record message
-- (oldcontent: the last shape), version + 1; the row stays, status DROPPED (the table
-- leaves the publication by itself). A partition dropped holding rows stops its table.
CREATE OR REPLACE FUNCTION ${schema}.${fn_on_drop}() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r     record;
    t     record;
    v_why text;
BEGIN
    IF to_regclass($lit{tables_q}) IS NULL OR to_regclass($lit{log_state_q}) IS NULL THEN
        RETURN;
    END IF;
    FOR r IN SELECT d.objid FROM pg_event_trigger_dropped_objects() d
              WHERE d.object_type = 'table' LOOP
        SELECT * INTO t FROM ${schema}.${tables} WHERE relid = r.objid FOR UPDATE;
        CONTINUE WHEN NOT FOUND;
        PERFORM pg_logical_emit_message(true, $lit{msg_ddl}, json_build_object(
            'action', 'DROP', 'id', t.id, 'relid', r.objid,
            'schema', t.schemaname, 'table', t.tablename,
            'new_schema', t.schemaname, 'new_table', t.tablename,
            'content', NULL, 'oldcontent', t.shape::text, 'version', t.version + 1)::text);
        UPDATE ${schema}.${tables}
           SET version = version + 1, relid = NULL, status = 'DROPPED', key_attnums = NULL,
               reason = 'the table was dropped'
         WHERE id = t.id;
    END LOOP;
    -- A partition dropped holding rows (ddl_start noted which might,
    -- install/135_fn_on_drop_start.sql): they left the partitioned table with no log record
    -- and stay at the targets; a STOP record at this place of the log stops the table.
    FOR r IN SELECT d.object_identity, split_part(h.x, ':', 2)::integer AS tid
               FROM pg_event_trigger_dropped_objects() d
               JOIN unnest(string_to_array(coalesce(current_setting(
                        $lit{origin_guc} || '_held', true), ''), ',')) AS h(x)
                 ON split_part(h.x, ':', 1) = d.objid::text
              WHERE d.object_type = 'table' LOOP
        SELECT * INTO t FROM ${schema}.${tables} WHERE id = r.tid AND status = 'OK' FOR UPDATE;
        CONTINUE WHEN NOT FOUND;
        v_why := format('partition %s was dropped holding rows, which are in no log record '
                        'and stay at the targets', r.object_identity);
        PERFORM pg_logical_emit_message(true, $lit{msg_ddl}, json_build_object(
            'action', 'STOP', 'id', t.id, 'relid', t.relid,
            'schema', t.schemaname, 'table', t.tablename,
            'new_schema', t.schemaname, 'new_table', t.tablename,
            'content', json_build_object('reason', v_why)::text,
            'oldcontent', NULL, 'version', t.version)::text);
        UPDATE ${schema}.${tables} SET status = 'ERROR', reason = v_why WHERE id = t.id;
    END LOOP;
END
$fn$
