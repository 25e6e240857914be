-- Why a watched table's capture is no longer whole, or NULL: one of its triggers was
-- dropped or disabled by hand (on the table, or on a partition that has its statement
-- triggers already; a partition still covered by the inherited row trigger is not
-- missing anything). Its changes go uncaptured from then on.
CREATE OR REPLACE FUNCTION ${schema}.${fn_gap}(p_id integer) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    t record;
    r record;
BEGIN
    SELECT * INTO t FROM ${schema}.${tables} WHERE id = p_id;
    IF NOT FOUND OR t.status <> 'OK' OR t.relid IS NULL OR t.trigger_name IS NULL
       OR coalesce(current_setting($lit{origin_guc} || '_making', true), '') <> '' THEN
        RETURN NULL;
    END IF;
    FOR r IN
        WITH rels AS (
            SELECT t.relid AS relid, true AS top
            UNION
            SELECT p.relid, false FROM pg_partition_tree(t.relid) p WHERE p.relid <> t.relid
        ), wanted AS (
            SELECT rels.relid, rels.top, t.trigger_name || x.suffix AS tgname
              FROM rels,
                   (VALUES ('I', '_ins'), ('U', '_upd'), ('D', '_del'), ('D', '_trunc'))
                   AS x(letter, suffix)
             WHERE strpos(coalesce(t.actions, 'IUD'), x.letter) > 0
            UNION ALL
            SELECT rels.relid, true, t.trigger_name || '_new'
              FROM rels JOIN pg_class c ON c.oid = rels.relid
             WHERE rels.top AND c.relkind = 'p'
        )
        SELECT w.tgname, w.relid::regclass::text AS rel, g.tgenabled
          FROM wanted w
          LEFT JOIN pg_trigger g ON g.tgrelid = w.relid AND g.tgname = w.tgname
         WHERE (g.tgname IS NULL OR g.tgenabled NOT IN ('O', 'A'))
           AND (w.top OR NOT EXISTS (SELECT 1 FROM pg_trigger n
                                      WHERE n.tgrelid = w.relid
                                        AND n.tgname = t.trigger_name || '_new'
                                        AND n.tgenabled <> 'D'))
         ORDER BY w.top DESC, 2, 1
         LIMIT 1
    LOOP
        RETURN format('capture trigger %s on %s was %s by hand: changes of %I.%I are not '
                      'captured any more', r.tgname, r.rel,
                      CASE WHEN r.tgenabled IS NULL THEN 'dropped' ELSE 'disabled' END,
                      t.schemaname, t.tablename);
    END LOOP;
    RETURN NULL;
END
$fn$
---
-- Capture of one table cannot go on exactly: a STOP record in the stream (content: the
-- reason) where it broke, so that rounds apply every change before it and stop the table
-- there with the reason; the table's status is ERROR until install makes its capture
-- again. What was written after this point is not in the stream: snapshot the table.
CREATE OR REPLACE FUNCTION ${schema}.${fn_stop}(p_id integer, p_reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    t     record;
    v_loc text;
    v_sid text;
    v_k   bigint;
    v_at  timestamptz := clock_timestamp();
BEGIN
    SELECT * INTO t FROM ${schema}.${tables} WHERE id = p_id FOR UPDATE;
    SELECT location, stream_id INTO v_loc, v_sid FROM ${schema}.${service};
    v_k := nextval($lit{seq_q}::regclass);
    INSERT INTO ${schema}.${items} (repl_key, guid, trans_key, dbid, tablename, db_catalog,
                                   db_schema, db_action, content, oldcontent, version,
                                   captured_at)
    VALUES (v_k, v_sid || ':' || v_k, pg_current_xact_id(),
            coalesce(nullif(current_setting($lit{origin_guc}, true), ''), v_loc),
            t.tablename, current_database(), t.schemaname, 'STOP',
            json_build_object('reason', p_reason)::text, NULL, t.version, v_at);
    INSERT INTO ${schema}.${ddl_log} (repl_key, trans_key, db_action, db_schema, tablename,
                                      version, captured_at)
    VALUES (v_k, pg_current_xact_id(), 'STOP', t.schemaname, t.tablename, t.version, v_at);
    UPDATE ${schema}.${tables} SET status = 'ERROR', reason = p_reason WHERE id = p_id;
END
$fn$
