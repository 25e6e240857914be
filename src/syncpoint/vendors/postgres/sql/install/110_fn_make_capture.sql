-- (Re)generates the capture function of one watched table and its triggers, from the
-- catalog as it is now. Called by install, by the DDL event trigger after a change of the
-- table's shape, and when a row of the tables table changes its actions or debug flag.
--
-- The generated function is one plpgsql function per table, fired by AFTER ... FOR EACH
-- STATEMENT triggers with transition tables: each statement writes all its records with a
-- single INSERT ... SELECT (a row trigger costs a function call and an INSERT per row).
--   INSERT   one record per row of sp_new;
--   DELETE   one record per row of sp_old;
--   UPDATE   sp_old and sp_new paired by the key: a pair is an UPDATE; an old key without a
--            new partner is a DELETE, a new key without an old partner an INSERT (a key
--            update such as id = id + 1 becomes the changes that leave the right final
--            state, key by key);
--   TRUNCATE one record carrying the table's shape.
-- UPDATE is captured FOR EACH ROW instead where the key is NOT NULL and unique by an index
-- checked row by row (not deferrable: a primary key as usually declared). Pairing by key
-- then needs no join: OLD and NEW are the pair, and since every row's change leaves the
-- key unique, its records in execution order (a key change as the old key's DELETE and the
-- new key's INSERT) replay to the statement's final state. A single-row UPDATE, the
-- commonest statement of OLTP work, costs two thirds of the join of transition tables
-- that way; a bulk UPDATE costs a few microseconds a row more. Where a statement may swap
-- keys (a deferrable or no unique index) only the statement's pairing by key is right.
-- Content is row_to_json text (column order kept); bytea is base64, money a plain number,
-- and floats, json/jsonb, arrays and composites their text as a JSON string (made by a
-- projection); settings that change how a value is
-- written as text (TimeZone, extra_float_digits, IntervalStyle, DateStyle, bytea_output)
-- are pinned for the statement when the table has a type they affect and the session's
-- value differs, then restored (transaction-local, so an error restores them too).
-- Names of this install (the queue, the sequence, the setting read for the origin) are
-- baked in as literals; so are the location, the table's name and its shape version.
CREATE OR REPLACE FUNCTION ${schema}.${fn_make}(p_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $gen$
DECLARE
    t          record;
    c          record;
    v_rel      oid;
    v_kind     "char";
    v_fn       text := $lit{fn_prefix} || p_id;
    v_fnq      text := format('%I.%I', $lit{schema}, $lit{fn_prefix} || p_id);
    v_relq     text;
    v_keys     smallint[];
    v_names    text[] := '{}';
    v_missing  text;
    v_keysel   text := '';
    v_join     text := '';
    v_same     text := '';
    v_row      boolean;
    v_upd      text;
    v_rec      text;
    v_cols     text := '';
    v_proj     boolean := false;
    v_base     oid;
    v_next     oid;
    v_typtype  "char";
    v_cat      "char";
    v_need     text[] := '{}';
    v_enc      text;
    v_eq       text;
    v_actions  text;
    v_loc      text;
    v_guid     text;
    v_gdecl    text := '';
    v_gon      text := '';
    v_goff     text := '';
    v_head     text;
    v_dbg      text := '';
    v_body     text;
    v_trg      text;
    i          integer;
    -- a partitioned table's partitions made after install (see the end)
    v_had      boolean := false;
    v_new      oid[] := '{}';
    v_gone     text[];
    v_kobj     text := '';
    v_fkeys    text := '';
    v_okeys    text := '';
    v_prow     text := '';
    v_dhead    text;
    v_events   text;
    v_saved    text[];
    -- types written the same whatever the session's settings
    v_plain    oid[] := ARRAY['int2', 'int4', 'int8', 'numeric', 'text', 'varchar', 'bpchar',
                              'bool', 'uuid', 'json', 'jsonb', 'date', 'timestamp', 'time',
                              'timetz', 'oid', 'name', '"char"', 'inet', 'cidr', 'macaddr',
                              'macaddr8', 'bit', 'varbit', 'xml']::regtype[]::oid[];
BEGIN
    SELECT * INTO t FROM ${schema}.${tables} WHERE id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'syncpoint: no watched table with id %', p_id;
    END IF;
    v_rel := to_regclass(format('%I.%I', t.schemaname, t.tablename));
    IF v_rel IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_table',
            MESSAGE = format('syncpoint: table %I.%I does not exist', t.schemaname, t.tablename);
    END IF;
    SELECT relkind INTO v_kind FROM pg_class WHERE oid = v_rel;
    -- Statement triggers see the rows of the statement's target only: rows written to a
    -- partition or inheritance child directly would bypass a parent's triggers, and rows
    -- written through a parent a child's. A partitioned table is captured as one table:
    -- the same triggers on it and on every partition below it (see the end).
    IF v_kind NOT IN ('r', 'p') OR EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class k
                                            ON k.oid = i.inhrelid
                                          WHERE (i.inhrelid = v_rel OR i.inhparent = v_rel)
                                            AND NOT k.relispartition)
       OR (SELECT relispartition FROM pg_class WHERE oid = v_rel) THEN
        RAISE EXCEPTION USING ERRCODE = 'wrong_object_type',
            MESSAGE = format('syncpoint: %I.%I is not a plain or partitioned table '
                             '(partitions and inheritance parents or children cannot be '
                             'captured; list a partitioned table, not its partitions)',
                             t.schemaname, t.tablename);
    END IF;
    v_relq := v_rel::regclass::text;

    -- The key: the one named in the channel file (followed by attnum across renames), else
    -- the primary key, else the key the previous trigger used if its columns still exist.
    IF t.key_columns IS NOT NULL THEN
        v_keys := t.key_attnums;
        IF v_keys IS NULL THEN
            SELECT array_agg(a.attnum ORDER BY k.ord),
                   string_agg(CASE WHEN a.attnum IS NULL THEN k.name END, ', ')
              INTO v_keys, v_missing
              FROM unnest(t.key_columns) WITH ORDINALITY AS k(name, ord)
              LEFT JOIN pg_attribute a
                ON a.attrelid = v_rel AND a.attname = k.name AND a.attnum > 0
               AND NOT a.attisdropped;
            IF v_missing IS NOT NULL THEN
                RAISE EXCEPTION USING ERRCODE = 'undefined_column',
                    MESSAGE = format('syncpoint: key column(s) %s of table %I.%I do not exist',
                                     v_missing, t.schemaname, t.tablename);
            END IF;
        END IF;
    ELSE
        SELECT array_agg(k.attnum ORDER BY k.ord) INTO v_keys
          FROM pg_index ix, unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
         WHERE ix.indrelid = v_rel AND ix.indisprimary;
        v_keys := coalesce(v_keys, t.key_attnums);
    END IF;
    IF v_keys IS NULL OR cardinality(v_keys) = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_table_definition',
            MESSAGE = format('syncpoint: table %I.%I has no primary key, and capture pairs '
                             'the old and new rows of an UPDATE by key',
                             t.schemaname, t.tablename),
            HINT = 'Add a primary key, or name a key in the channel file (key: [col, ...]).';
    END IF;
    FOR i IN 1 .. cardinality(v_keys) LOOP
        SELECT a.attname, a.atttypid, format_type(a.atttypid, a.atttypmod) AS typ INTO c
          FROM pg_attribute a
         WHERE a.attrelid = v_rel AND a.attnum = v_keys[i] AND NOT a.attisdropped;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_table_definition',
                MESSAGE = format('syncpoint: a key column of table %I.%I was dropped; capture '
                                 'cannot pair the rows of an UPDATE any more',
                                 t.schemaname, t.tablename),
                HINT = 'Give the table a primary key first, or remove it from the channel.';
        END IF;
        -- A type from an extension has its "=" outside pg_catalog, where this search_path
        -- would not find it.
        SELECT format('OPERATOR(%I.=)', n.nspname) INTO v_eq
          FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
         WHERE o.oprname = '=' AND o.oprleft = c.atttypid AND o.oprright = c.atttypid
           AND n.nspname <> 'pg_catalog'
         LIMIT 1;
        v_keysel := v_keysel || format(', t.%I AS sp_k%s', c.attname, i);
        v_join := v_join || CASE WHEN i > 1 THEN ' AND ' ELSE '' END
                  || format('o.sp_k%s %s n.sp_k%s', i, coalesce(v_eq, '='), i);
        v_same := v_same || CASE WHEN i > 1 THEN ' AND ' ELSE '' END
                  || format('(OLD).%I %s (NEW).%I', c.attname, coalesce(v_eq, '='), c.attname);
        v_names := v_names || c.attname::text;
        v_kobj := v_kobj || CASE WHEN i > 1 THEN ', ' ELSE '' END
                  || format('%L, @ROW@.%I', c.attname, c.attname);
        v_fkeys := v_fkeys || format(' AND x.%I = (f.k ->> %L)::%s', c.attname, c.attname, c.typ);
        v_okeys := v_okeys || format(' AND x.%I = o.%I', c.attname, c.attname);
    END LOOP;

    -- Row by row for UPDATE (see the top): a valid, non-deferrable, non-partial unique index
    -- on key columns only, and no key column that may be NULL.
    SELECT EXISTS (
               SELECT 1 FROM pg_index ix
                WHERE ix.indrelid = v_rel AND ix.indisunique AND ix.indimmediate
                  AND ix.indisvalid AND ix.indpred IS NULL AND ix.indexprs IS NULL
                  AND (SELECT bool_and(k.attnum = ANY (v_keys))
                         FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
                        WHERE k.ord <= ix.indnkeyatts))
       AND NOT EXISTS (SELECT 1 FROM pg_attribute a
                        WHERE a.attrelid = v_rel AND a.attnum = ANY (v_keys)
                          AND NOT a.attnotnull)
      INTO v_row;
    -- A partitioned table's UPDATE statement pairs the rows it moves between partitions
    -- (row triggers see such a move as a DELETE and an INSERT of partitions only).
    v_row := v_row AND v_kind = 'r';

    -- Columns: which need a projection, which settings the encoding depends on.
    FOR c IN SELECT a.attname, a.atttypid
               FROM pg_attribute a
              WHERE a.attrelid = v_rel AND a.attnum > 0 AND NOT a.attisdropped
              ORDER BY a.attnum LOOP
        v_base := c.atttypid;
        LOOP
            SELECT typtype, typbasetype, typcategory INTO v_typtype, v_next, v_cat
              FROM pg_type WHERE oid = v_base;
            EXIT WHEN v_typtype <> 'd';
            v_base := v_next;
        END LOOP;
        IF v_base = 'bytea'::regtype THEN
            v_proj := true;
            v_cols := v_cols || format(
                ', translate(encode((@ROW@).%I::bytea, ''base64''), E''\n'', '''') AS %I',
                c.attname, c.attname);
        ELSIF v_base = 'money'::regtype THEN
            v_proj := true;
            v_cols := v_cols || format(', ((@ROW@).%I::money)::numeric AS %I',
                                       c.attname, c.attname);
        ELSIF v_base IN ('float4'::regtype, 'float8'::regtype, 'json'::regtype,
                         'jsonb'::regtype) OR v_typtype = 'c' OR v_cat = 'A' THEN
            -- As text, a JSON string: a float keeps -0 (a JSON number would not: jsonb
            -- reads numbers as numeric), a json value keeps its text and a JSON null stays
            -- apart from SQL NULL, an array or composite keeps its own literal (row_to_json
            -- would rewrite it as JSON, which no cast reads back).
            v_proj := true;
            v_cols := v_cols || format(', (@ROW@).%I::text AS %I', c.attname, c.attname);
            IF v_base IN ('float4'::regtype, 'float8'::regtype) THEN
                v_need := v_need || 'extra_float_digits'::text;
            ELSIF v_typtype = 'c' OR v_cat = 'A' THEN
                v_need := v_need || ARRAY['TimeZone', 'extra_float_digits', 'IntervalStyle',
                                          'DateStyle', 'bytea_output'];
            END IF;
        ELSE
            v_cols := v_cols || format(', (@ROW@).%I AS %I', c.attname, c.attname);
            IF v_base = 'timestamptz'::regtype THEN
                v_need := v_need || 'TimeZone'::text;
            ELSIF v_base IN ('float4'::regtype, 'float8'::regtype) THEN
                v_need := v_need || 'extra_float_digits'::text;
            ELSIF v_base = 'interval'::regtype THEN
                v_need := v_need || 'IntervalStyle'::text;
            ELSIF NOT (v_typtype = 'e' OR v_base = ANY (v_plain)) THEN
                -- arrays, ranges, composites, other types: their text may hold any of these
                v_need := v_need || ARRAY['TimeZone', 'extra_float_digits', 'IntervalStyle',
                                          'DateStyle', 'bytea_output'];
            END IF;
        END IF;
    END LOOP;
    IF v_proj THEN
        v_enc := format('(SELECT row_to_json(sp_p)::text FROM (SELECT %s) AS sp_p)',
                        substr(v_cols, 3));
    ELSE
        v_enc := 'row_to_json(@ROW@)::text';
    END IF;

    SELECT coalesce(array_agg(DISTINCT g ORDER BY g), '{}') INTO v_need FROM unnest(v_need) g;
    IF cardinality(v_need) > 0 THEN
        v_gdecl := 'sp_g text[];';
        v_gon := format(
            'IF NOT (%s) THEN sp_g := ARRAY[%s]; PERFORM %s; END IF;',
            (SELECT string_agg(CASE g
                    WHEN 'TimeZone' THEN 'current_setting(''TimeZone'') IN (''UTC'', '
                         '''Etc/UTC'', ''GMT'', ''Etc/GMT'', ''UCT'', ''Etc/UCT'', '
                         '''Universal'', ''Etc/Universal'', ''Zulu'', ''Etc/Zulu'')'
                    WHEN 'extra_float_digits' THEN
                         'current_setting(''extra_float_digits'')::integer >= 1'
                    WHEN 'IntervalStyle' THEN 'current_setting(''IntervalStyle'') = ''postgres'''
                    WHEN 'DateStyle' THEN 'left(current_setting(''DateStyle''), 3) = ''ISO'''
                    WHEN 'bytea_output' THEN 'current_setting(''bytea_output'') = ''hex'''
                    END, ' AND ' ORDER BY g) FROM unnest(v_need) g),
            (SELECT string_agg(format('current_setting(%L)', g), ', ' ORDER BY g)
               FROM unnest(v_need) g),
            (SELECT string_agg(format('set_config(%L, %L, true)', g, CASE g
                    WHEN 'TimeZone' THEN 'UTC' WHEN 'extra_float_digits' THEN '1'
                    WHEN 'IntervalStyle' THEN 'postgres' WHEN 'DateStyle' THEN 'ISO, MDY'
                    WHEN 'bytea_output' THEN 'hex' END), ', ' ORDER BY g)
               FROM unnest(v_need) g));
        v_goff := format('IF sp_g IS NOT NULL THEN PERFORM %s; END IF;',
            (SELECT string_agg(format('set_config(%L, sp_g[%s], true)', g, o), ', ' ORDER BY o)
               FROM unnest(v_need) WITH ORDINALITY AS x(g, o)));
    END IF;

    IF t.debug = 1 THEN
        v_dbg := format(
            'GET DIAGNOSTICS sp_n = ROW_COUNT; '
            'INSERT INTO %s (repl_key, line) VALUES ('
            'CASE WHEN sp_n > 0 THEN currval(%L::regclass) END, '
            'format(''%%s %%s: %%s record(s), trans_key %%s, dbid %%s'', '
            'TG_OP, %L, sp_n, sp_x, sp_o));',
            $lit{debug_q}, $lit{seq_q}, format('%I.%I', t.schemaname, t.tablename));
    END IF;

    SELECT location, stream_id || ':' INTO v_loc, v_guid FROM ${schema}.${service};
    -- one VALUES row per record: the cheapest plan to start, once per row
    v_rec := format(
        'INSERT INTO %s (repl_key, guid, trans_key, dbid, tablename, db_catalog, '
        'db_schema, db_action, content, oldcontent, version, captured_at) '
        'VALUES (sp_k, %L || sp_k::text, sp_x, sp_o, %L, %L, %L, ',
        $lit{items_q}, v_guid, t.tablename, current_database(), t.schemaname);
    IF v_row THEN
        v_upd := format($upd$
        sp_k := nextval(%1$L::regclass);
        IF %2$s THEN
            %3$s 'UPDATE', %4$s, %5$s, %6$s, sp_at);
        ELSE
            %3$s 'DELETE', NULL, %5$s, %6$s, sp_at);
            sp_k := nextval(%1$L::regclass);
            %3$s 'INSERT', %4$s, NULL, %6$s, sp_at);
        END IF;$upd$,
            $lit{seq_q}, v_same, v_rec, replace(v_enc, '@ROW@', 'NEW'),
            replace(v_enc, '@ROW@', 'OLD'), t.version);
    END IF;
    -- The key is taken in a fenced subquery (OFFSET 0) so that the guid is made from the
    -- same nextval; a generated column would cost an expression set-up per statement.
    v_head := format(
        'INSERT INTO %s (repl_key, guid, trans_key, dbid, tablename, db_catalog, db_schema, '
        'db_action, content, oldcontent, version, captured_at) '
        'SELECT q.sp_k, %L || q.sp_k::text, sp_x, sp_o, %L, %L, %L, q.sp_a, q.sp_c, q.sp_oc, '
        '%s, sp_at FROM (SELECT nextval(%L::regclass) AS sp_k, ',
        $lit{items_q}, v_guid, t.tablename, current_database(), t.schemaname, t.version,
        $lit{seq_q});
    -- The same for make's own records below (no trigger variables: bound as $1 to $3).
    v_dhead := format(
        'INSERT INTO %s (repl_key, guid, trans_key, dbid, tablename, db_catalog, db_schema, '
        'db_action, content, oldcontent, version, captured_at) '
        'SELECT q.sp_k, %L || q.sp_k::text, $1, $2, %L, %L, %L, q.sp_a, q.sp_c, q.sp_oc, '
        '%s, $3 FROM (SELECT nextval(%L::regclass) AS sp_k, ',
        $lit{items_q}, v_guid, t.tablename, current_database(), t.schemaname, t.version,
        $lit{seq_q});
    IF v_kind = 'p' THEN
        -- The row trigger every partition made later inherits (enabled only on those, until
        -- they get the statement triggers): one record per row, and the row's key kept in
        -- the fresh keys for the TRUNCATE no trigger of that partition sees.
        v_prow := format($row$
    IF TG_LEVEL = 'ROW' THEN
        sp_k := nextval(%1$L::regclass);
        IF TG_OP = 'INSERT' THEN
            %2$s 'INSERT', %3$s, NULL, %5$s, sp_at);
        ELSIF TG_OP = 'UPDATE' THEN
            %2$s 'UPDATE', %3$s, %4$s, %5$s, sp_at);
        ELSE
            %2$s 'DELETE', NULL, %4$s, %5$s, sp_at);
        END IF;
        IF TG_OP <> 'INSERT' THEN
            INSERT INTO %6$s (tid, relid, k, row_text)
            VALUES (%10$s, TG_RELID, jsonb_build_object(%7$s), %4$s)
            ON CONFLICT (tid, relid, k) DO UPDATE SET row_text = EXCLUDED.row_text;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            INSERT INTO %6$s (tid, relid, k, row_text)
            VALUES (%10$s, TG_RELID, jsonb_build_object(%8$s), %3$s)
            ON CONFLICT (tid, relid, k) DO UPDATE SET row_text = EXCLUDED.row_text;
        END IF;
        %9$s
        RETURN NULL;
    END IF;$row$,
            $lit{seq_q}, v_rec, replace(v_enc, '@ROW@', 'NEW'), replace(v_enc, '@ROW@', 'OLD'),
            t.version, $lit{fresh_q}, replace(v_kobj, '@ROW@', 'OLD'),
            replace(v_kobj, '@ROW@', 'NEW'), v_goff, p_id);
    END IF;
    v_body := format($body$
#variable_conflict use_variable
DECLARE
    sp_x  xid8 := pg_current_xact_id();
    sp_o  text := coalesce(nullif(current_setting(%L, true), ''), %L);
    sp_at timestamptz := clock_timestamp();
    sp_n  bigint;
    sp_k  bigint;
    %s
BEGIN
    IF TG_WHEN = 'BEFORE' THEN
        EXECUTE format('DELETE FROM %%I.%%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
        RETURN NULL;
    END IF;
    %s
    %s
    IF TG_OP = 'INSERT' THEN
        %s 'INSERT' AS sp_a, %s AS sp_c, NULL::text AS sp_oc
          FROM sp_new AS n OFFSET 0) AS q;
    ELSIF TG_OP = 'UPDATE' THEN
        %s
    ELSIF TG_OP = 'DELETE' THEN
        %s 'DELETE' AS sp_a, NULL::text AS sp_c, %s AS sp_oc
          FROM sp_old AS o OFFSET 0) AS q;
    ELSE
        %s 'TRUNCATE' AS sp_a, s.shape::text AS sp_c, NULL::text AS sp_oc
          FROM %s AS s WHERE s.id = %s OFFSET 0) AS q;
        INSERT INTO %s (repl_key, trans_key, db_action, db_schema, tablename, version,
                        captured_at)
        VALUES (currval(%L::regclass), sp_x, 'TRUNCATE', %L, %L, %s, sp_at);
    END IF;
    %s
    %s
    RETURN NULL;
END
$body$,
        $lit{origin_guc}, v_loc, v_gdecl, v_gon, v_prow,
        v_head, replace(v_enc, '@ROW@', 'n.*'),
        coalesce(v_upd, format($upd$%s CASE WHEN o.sp_m IS NULL THEN 'INSERT'
                WHEN n.sp_m IS NULL THEN 'DELETE' ELSE 'UPDATE' END AS sp_a,
           CASE WHEN n.sp_m THEN %s END AS sp_c, CASE WHEN o.sp_m THEN %s END AS sp_oc
          FROM (SELECT true AS sp_m, t.*::%s AS sp_r%s FROM sp_old AS t) AS o
          FULL JOIN (SELECT true AS sp_m, t.*::%s AS sp_r%s FROM sp_new AS t) AS n ON %s
        OFFSET 0) AS q;$upd$,
            v_head, replace(v_enc, '@ROW@', 'n.sp_r'), replace(v_enc, '@ROW@', 'o.sp_r'),
            v_relq, v_keysel, v_relq, v_keysel, v_join)),
        v_head, replace(v_enc, '@ROW@', 'o.*'),
        v_head, $lit{tables_q}, p_id,
        $lit{ddl_q}, $lit{seq_q}, t.schemaname, t.tablename, t.version,
        v_dbg, v_goff);

    -- Record the table's identity and shape first: ALTER TABLE below fires the DDL event
    -- trigger again, which must find the table watched and its shape unchanged.
    UPDATE ${schema}.${tables}
       SET relid = v_rel, key_attnums = v_keys, trigger_name = v_fn,
           key_columns = CASE WHEN key_columns IS NULL THEN NULL ELSE v_names END,
           shape = ${schema}.${fn_shape}(v_rel)
     WHERE id = p_id;

    EXECUTE format('CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql '
                   'SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS %L',
                   v_fnq, v_body);
    v_actions := coalesce(t.actions, 'IUD');
    -- The ALTERs below fire the DDL event triggers, which must neither make this again nor
    -- take a trigger not made yet for one dropped by hand (capture_gap).
    PERFORM set_config($lit{origin_guc} || '_making', '1', true);
    IF v_kind = 'p' THEN
        -- Partitions made or attached since capture was made here: the leaves on which
        -- the inherited row trigger is enabled (it is disabled where statement triggers
        -- are in place). Read before that trigger is made again, which enables it on all.
        v_had := EXISTS (SELECT 1 FROM pg_trigger
                          WHERE tgrelid = v_rel AND tgname = v_fn || '_new');
        IF v_had THEN
            SELECT coalesce(array_agg(p.relid), '{}') INTO v_new
              FROM pg_partition_tree(v_rel) p
              JOIN pg_trigger g ON g.tgrelid = p.relid AND g.tgname = v_fn || '_new'
             WHERE p.isleaf AND p.relid <> v_rel AND g.tgenabled <> 'D';
        END IF;
        -- make's own records below are written as the triggers write them
        IF cardinality(v_need) > 0 THEN
            v_saved := ARRAY(SELECT current_setting(g) FROM unnest(v_need) g ORDER BY g);
            PERFORM set_config(g, CASE g WHEN 'TimeZone' THEN 'UTC' WHEN 'extra_float_digits'
                                  THEN '1' WHEN 'IntervalStyle' THEN 'postgres'
                                  WHEN 'DateStyle' THEN 'ISO, MDY' ELSE 'hex' END, true)
              FROM unnest(v_need) g;
        END IF;
    END IF;
    FOR c IN SELECT * FROM (VALUES
            ('I', '_ins', 'INSERT', 'REFERENCING NEW TABLE AS sp_new FOR EACH STATEMENT'),
            ('U', '_upd', 'UPDATE', CASE WHEN v_row THEN 'FOR EACH ROW' ELSE
                'REFERENCING OLD TABLE AS sp_old NEW TABLE AS sp_new FOR EACH STATEMENT' END),
            ('D', '_del', 'DELETE', 'REFERENCING OLD TABLE AS sp_old FOR EACH STATEMENT'),
            ('D', '_trunc', 'TRUNCATE', 'FOR EACH STATEMENT'))
            AS x(letter, suffix, event, referencing) LOOP
        v_trg := v_fn || c.suffix;
        IF strpos(v_actions, c.letter) > 0 THEN
            EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER %s ON %s %s '
                           'EXECUTE FUNCTION %s()', v_trg, c.event, v_relq, c.referencing, v_fnq);
            -- ALWAYS: also when a session sets session_replication_role = replica
            EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', v_relq, v_trg);
        ELSIF EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = v_rel AND tgname = v_trg) THEN
            EXECUTE format('DROP TRIGGER %I ON %s', v_trg, v_relq);
        END IF;
    END LOOP;
    -- A partitioned table: every partition (at every level) gets the parent's statement
    -- triggers too, for statements that name it directly (those that name the parent fire
    -- the parent's only); their rows are written under the parent's name and shape.
    -- Triggers left on a table no longer in the tree (detached) go; the table's rows left
    -- the partitioned table with it, so each becomes a DELETE record (but for a key that
    -- is in the partitioned table again). The lock first: no write to it in between.
    SELECT array_agg(DISTINCT tg.tgrelid::regclass::text) INTO v_gone
      FROM pg_trigger tg
     WHERE tg.tgfoid = (v_fnq || '()')::regprocedure AND tg.tgrelid <> v_rel
       AND NOT tg.tgisinternal
       AND tg.tgrelid NOT IN (SELECT relid FROM pg_partition_tree(v_rel));
    FOR c IN SELECT g AS rel FROM unnest(v_gone) g
              WHERE strpos(coalesce(t.actions, 'IUD'), 'D') > 0 LOOP
        EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', c.rel);
        EXECUTE v_dhead || '''DELETE'' AS sp_a, NULL::text AS sp_c, '
                || replace(v_enc, '@ROW@', 'o.*') || ' AS sp_oc FROM ' || c.rel
                || ' AS o WHERE NOT EXISTS (SELECT 1 FROM ' || v_relq || ' AS x WHERE '
                || substr(v_okeys, 6) || ') OFFSET 0) AS q'
          USING pg_current_xact_id(),
                coalesce(nullif(current_setting($lit{origin_guc}, true), ''), v_loc),
                clock_timestamp();
    END LOOP;
    FOR c IN SELECT tg.tgname, tg.tgrelid::regclass::text AS rel
               FROM pg_trigger tg
              WHERE tg.tgfoid = (v_fnq || '()')::regprocedure AND tg.tgrelid <> v_rel
                AND NOT tg.tgisinternal
                AND tg.tgrelid NOT IN (SELECT relid FROM pg_partition_tree(v_rel)) LOOP
        EXECUTE format('DROP TRIGGER %I ON %s', c.tgname, c.rel);
    END LOOP;
    IF v_kind = 'p' THEN
        FOR c IN SELECT p.relid::regclass::text AS rel, x.*
                   FROM pg_partition_tree(v_rel) p,
                        (VALUES ('I', '_ins', 'INSERT', 'sp_new'),
                                ('U', '_upd', 'UPDATE', 'OLD TABLE AS sp_old NEW TABLE AS sp_new'),
                                ('D', '_del', 'DELETE', 'sp_old'),
                                ('D', '_trunc', 'TRUNCATE', NULL)) AS x(letter, suffix, event, tt)
                  WHERE p.relid <> v_rel LOOP
            v_trg := v_fn || c.suffix;
            IF strpos(v_actions, c.letter) > 0 THEN
                -- a partition's TRUNCATE: its rows are deleted first (BEFORE), and the
                -- deletes captured; a TRUNCATE record would empty the whole table elsewhere
                EXECUTE format('CREATE OR REPLACE TRIGGER %I %s %s ON %s %s '
                               'FOR EACH STATEMENT EXECUTE FUNCTION %s()', v_trg,
                               CASE WHEN c.tt IS NULL THEN 'BEFORE' ELSE 'AFTER' END,
                               c.event, c.rel,
                               CASE WHEN c.tt IS NULL THEN ''
                                    WHEN c.letter = 'U' THEN 'REFERENCING ' || c.tt
                                    WHEN c.letter = 'I' THEN 'REFERENCING NEW TABLE AS ' || c.tt
                                    ELSE 'REFERENCING OLD TABLE AS ' || c.tt END, v_fnq);
                EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', c.rel, v_trg);
            ELSE
                EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', v_trg, c.rel);
            END IF;
        END LOOP;
        -- A partition made (CREATE TABLE ... PARTITION OF, ATTACH PARTITION) after this
        -- clones the partitioned table's row triggers, not its statement triggers: this
        -- row trigger captures its rows from the first one until a tick (DDL by polling)
        -- or the DDL event trigger gives it the statement triggers above. Made again, it
        -- is enabled everywhere, then disabled on the leaves that have those.
        SELECT string_agg(x.event, ' OR ' ORDER BY x.o) INTO v_events
          FROM (VALUES (1, 'I', 'INSERT'), (2, 'U', 'UPDATE'), (3, 'D', 'DELETE'))
               AS x(o, letter, event)
         WHERE strpos(v_actions, x.letter) > 0;
        EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER %s ON %s FOR EACH ROW '
                       'EXECUTE FUNCTION %s()', v_fn || '_new', v_events, v_relq, v_fnq);
        EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', v_relq, v_fn || '_new');
        FOR c IN SELECT p.relid::regclass::text AS rel FROM pg_partition_tree(v_rel) p
                  WHERE p.isleaf AND p.relid <> v_rel LOOP
            EXECUTE format('ALTER TABLE %s DISABLE TRIGGER %I', c.rel, v_fn || '_new');
        END LOOP;
        -- What the row trigger saw of a partition now in place (or gone again): a key no
        -- longer in the table was emptied by a TRUNCATE no trigger saw (or left with its
        -- partition) and becomes a DELETE record; then every row of a new partition is
        -- written once more (an attached table's rows were never captured). Its statement
        -- triggers hold it locked: no write comes in between.
        FOR c IN SELECT DISTINCT f.relid FROM ${schema}.${fresh} f WHERE f.tid = p_id LOOP
            CONTINUE WHEN strpos(v_actions, 'D') = 0;
            EXECUTE v_dhead || '''DELETE'' AS sp_a, NULL::text AS sp_c, f.row_text AS sp_oc FROM '
                    || $lit{fresh_q} || ' AS f WHERE f.tid = $4 AND f.relid = $5 '
                    || 'AND NOT EXISTS (SELECT 1 FROM ' || v_relq || ' AS x WHERE '
                    || substr(v_fkeys, 6) || ') OFFSET 0) AS q'
              USING pg_current_xact_id(),
                    coalesce(nullif(current_setting($lit{origin_guc}, true), ''), v_loc),
                    clock_timestamp(), p_id, c.relid;
        END LOOP;
        DELETE FROM ${schema}.${fresh} WHERE tid = p_id;
        FOR c IN SELECT g::regclass::text AS rel FROM unnest(v_new) g
                  WHERE strpos(v_actions, 'I') > 0 LOOP
            EXECUTE v_dhead || '''INSERT'' AS sp_a, ' || replace(v_enc, '@ROW@', 'n.*')
                    || ' AS sp_c, NULL::text AS sp_oc FROM ' || c.rel || ' AS n OFFSET 0) AS q'
              USING pg_current_xact_id(),
                    coalesce(nullif(current_setting($lit{origin_guc}, true), ''), v_loc),
                    clock_timestamp();
        END LOOP;
        IF v_saved IS NOT NULL THEN
            PERFORM set_config(y.g, v_saved[y.o], true)
               FROM unnest(ARRAY(SELECT x FROM unnest(v_need) x ORDER BY x))
                    WITH ORDINALITY AS y(g, o);
        END IF;
    END IF;
    PERFORM set_config($lit{origin_guc} || '_making', '', true);

    UPDATE ${schema}.${tables} SET status = 'OK', reason = NULL WHERE id = p_id;
END
$gen$
