-- A partition of a watched table dropped (DROP TABLE, DROP SCHEMA) takes its rows away
-- without any record of them, and they stay at the targets. With event triggers,
-- ddl_start sees it happen (135_fn_on_drop_start.sql); without them (a table owner
-- without superuser installed capture) this function finds it afterwards, at each tick
-- (p_ticking, called by tick after its snapshot) and each DDL poll or log check. A
-- partition known from the last call and now gone (under log capture: or detached; a
-- partition whose TRUNCATE trigger is older than log_check's detach check is seen here)
-- stops its table unless it is proven to have been empty: it was empty as of snapshot
-- snap AND no INSERT or UPDATE record of its
-- table written by a transaction snap does not see has a row inside the partition's
-- constraint (every row in it at the DROP was written by such a transaction, whose record
-- is in the queue: the DROP waited for it to end).
-- Under log capture those records are in the queue only once a drain read past the
-- DROP: the partition stays pending until a tick's drain passed gone_at. Where a record's
-- row cannot be told apart (a value its JSON does not give back), the table stops: a
-- false stop has a way back, a silent loss has none.
-- The snapshot taken in a tick (or later) holds: purge removes only records that a tick
-- made before it sees, and every tick refreshes the partitions it finds.
-- Then every partition of every watched table is looked at again: its size, and one
-- EXISTS where it has pages, under the lock pg_partition_tree takes already (which only
-- the application's DDL waits for).
CREATE OR REPLACE FUNCTION ${schema}.${fn_parts}(p_ticking boolean) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    t       record;
    r       record;
    v_now   pg_snapshot := pg_current_snapshot();
    v_log   boolean := to_regclass($lit{log_state_q}) IS NOT NULL;
    v_upto  pg_lsn;
    v_why   text;
    v_empty boolean;
    v_rows  boolean;
    v_ids     oid[];
    v_empties boolean[];
    v_n     integer := 0;
BEGIN
    IF to_regclass($lit{parts_q}) IS NULL
       OR EXISTS (SELECT 1 FROM pg_event_trigger e
                   WHERE e.evtname = $lit{et_start_name} AND e.evtenabled <> 'D') THEN
        RETURN 0;  -- an install of an earlier version, or event triggers see the DROP
    END IF;
    IF v_log THEN
        EXECUTE format('SELECT horizon FROM %s', $lit{log_state_q}) INTO v_upto;
    END IF;
    FOR r IN SELECT p.*, w.schemaname, w.tablename, w.status, w.relid AS top,
                    CASE WHEN EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = p.relid)
                         THEN 'detached' ELSE 'dropped' END AS how
               FROM ${schema}.${parts} p
               LEFT JOIN ${schema}.${tables} w ON w.id = p.tid
              WHERE (p.tid, p.relid) NOT IN (SELECT v.id, x.relid
                                               FROM ${schema}.${tables} v,
                                                    pg_partition_tree(v.relid) x
                                              WHERE v.relid IS NOT NULL)
                -- log capture: rows that left with a detached partition are in no log
                -- record either (trigger capture writes them as deleted)
                AND (v_log OR NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = p.relid))
              ORDER BY p.tid, p.relid LOOP
        IF r.status IS DISTINCT FROM 'OK'
           OR NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = r.top) THEN
            -- the table itself was dropped (its DROP record says so) or is stopped already
            DELETE FROM ${schema}.${parts} WHERE tid = r.tid AND relid = r.relid;
            CONTINUE;
        END IF;
        v_why := NULL;
        IF NOT r.empty THEN
            v_why := format('partition %s was %s holding rows', r.name, r.how);
        ELSE
            -- a row written since that its partition constraint would have put in it
            BEGIN
                EXECUTE format(
                    'SELECT EXISTS (SELECT 1 FROM %s i WHERE i.tablename = $1 '
                    'AND i.db_schema = $2 AND i.trans_key >= pg_snapshot_xmin($3) '
                    'AND NOT pg_visible_in_snapshot(i.trans_key, $3) '
                    'AND i.db_action IN (''INSERT'', ''UPDATE'') '
                    'AND EXISTS (SELECT 1 FROM json_populate_record(NULL::%s, '
                    'i.content::json) AS sp_row WHERE %s))',
                    $lit{items_q}, r.top::regclass::text, coalesce(r.bound, 'true'))
                   USING r.tablename, r.schemaname, r.snap INTO v_rows;
            EXCEPTION WHEN OTHERS THEN
                v_rows := true;  -- not told apart: taken as written into it
            END;
            IF v_rows THEN
                v_why := format('partition %s was %s after rows were written into it '
                                'since it was last seen empty', r.name, r.how);
            END IF;
        END IF;
        IF v_why IS NULL AND v_log AND (NOT p_ticking OR r.gone_at IS NULL OR v_upto IS NULL
                                        OR v_upto < r.gone_at) THEN
            -- rows written into it before the DROP may not be drained yet: looked at again
            -- from this snapshot on, until a tick's drain passed this point of the log
            UPDATE ${schema}.${parts}
               SET snap = v_now, gone_at = coalesce(r.gone_at, pg_current_wal_insert_lsn())
             WHERE tid = r.tid AND relid = r.relid;
            CONTINUE;
        END IF;
        DELETE FROM ${schema}.${parts} WHERE tid = r.tid AND relid = r.relid;
        IF v_why IS NOT NULL THEN
            PERFORM ${schema}.${fn_stop}(r.tid, v_why || ': its rows are in no change record, '
                                         'and stay at the targets');
            DELETE FROM ${schema}.${parts} WHERE tid = r.tid;
            v_n := v_n + 1;
        END IF;
    END LOOP;
    -- what every watched partitioned table holds now
    DELETE FROM ${schema}.${parts} p
     WHERE NOT EXISTS (SELECT 1 FROM ${schema}.${tables} w WHERE w.id = p.tid AND w.status = 'OK')
        OR (NOT v_log AND (p.tid, p.relid) NOT IN (SELECT v.id, x.relid
                                                     FROM ${schema}.${tables} v,
                                                          pg_partition_tree(v.relid) x
                                                    WHERE v.relid IS NOT NULL));
    FOR t IN SELECT w.id, w.relid FROM ${schema}.${tables} w JOIN pg_class c ON c.oid = w.relid
              WHERE w.status = 'OK' AND c.relkind = 'p' ORDER BY w.id LOOP
        v_ids := '{}';
        v_empties := '{}';
        FOR r IN SELECT x.relid, x.relid::regclass::text AS name, pg_relation_size(x.relid) AS size
                   FROM pg_partition_tree(t.relid) x
                  WHERE x.isleaf AND x.relid <> t.relid LOOP
            v_empty := r.size = 0;  -- no page: nothing to read
            IF NOT v_empty THEN
                BEGIN
                    EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM %s)', r.name) INTO v_empty;
                EXCEPTION WHEN OTHERS THEN
                    v_empty := false;  -- not readable here: taken as holding rows
                END;
            END IF;
            v_ids := v_ids || r.relid;
            v_empties := v_empties || v_empty;
        END LOOP;
        INSERT INTO ${schema}.${parts} (tid, relid, name, empty, snap, bound)
        SELECT t.id, u.relid, u.relid::regclass::text, u.empty, v_now,
               pg_get_partition_constraintdef(u.relid)
          FROM unnest(v_ids, v_empties) AS u(relid, empty)
        ON CONFLICT (tid, relid) DO UPDATE
           SET name = excluded.name, empty = excluded.empty, snap = excluded.snap,
               bound = excluded.bound, gone_at = NULL;
    END LOOP;
    RETURN v_n;
END
$fn$
