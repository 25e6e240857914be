-- Makes tick N+1 (PgQ style): the snapshot taken now says which transactions committed
-- before it. A record belongs to the first tick whose snapshot sees its transaction, so a
-- long transaction that took low repl_keys and committed late lands in a later tick.
-- guaranteed: a time such that every change captured before it is at or before this tick.
-- The clock and the start of the oldest transaction of this database holding an xid are
-- read BEFORE the snapshot: a transaction still open at the snapshot either was seen then
-- (its changes were captured after its start) or took its xid after the clock was read.
-- The FOR UPDATE on the service row serializes tickers; READ COMMITTED makes the snapshot
-- be taken after that lock is held. SECURITY DEFINER: pg_stat_activity shows other users'
-- transactions only to superusers and pg_read_all_stats.
CREATE OR REPLACE FUNCTION ${schema}.${fn_tick}()
RETURNS TABLE (o_tick bigint, o_guaranteed timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    v_ctx    bigint;
    v_clock  timestamptz;
    v_oldest timestamptz;
    v_snap   pg_snapshot;
    v_prev   pg_snapshot;
    v_g      timestamptz;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'syncpoint: a tick must run in a READ COMMITTED transaction';
    END IF;
    SELECT s.context INTO v_ctx FROM ${schema}.${service} AS s FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'syncpoint: capture is not installed (no service context row)';
    END IF;
    v_clock := clock_timestamp();
    PERFORM pg_stat_clear_snapshot();
    SELECT min(a.xact_start) INTO v_oldest
      FROM pg_stat_activity a
     WHERE a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid()
       AND a.datname = current_database();
    v_snap := pg_current_snapshot();
    SELECT k.snapshot INTO v_prev FROM ${schema}.${ticks} AS k WHERE k.tick_id = v_ctx;
    IF v_prev IS NOT NULL AND pg_snapshot_xmin(v_snap) < pg_snapshot_xmin(v_prev) THEN
        RAISE EXCEPTION USING
            MESSAGE = format('syncpoint: transaction ids went backwards (tick %s saw xmin %s, '
                             'now %s): the database was restored or replaced',
                             v_ctx, pg_snapshot_xmin(v_prev), pg_snapshot_xmin(v_snap)),
            HINT = 'Reinstall capture (a new stream) and take a new snapshot of the tables.';
    END IF;
    v_g := least(v_clock, v_oldest);
    INSERT INTO ${schema}.${ticks} (tick_id, snapshot, made_at, guaranteed)
    VALUES (v_ctx + 1, v_snap, v_clock, v_g);
    UPDATE ${schema}.${service} SET context = v_ctx + 1, ticked_at = v_clock, guaranteed = v_g;
    -- after the snapshot: partitions dropped where no event trigger saw it (117_fn_parts.sql)
    PERFORM ${schema}.${fn_parts}(true);
    RETURN QUERY SELECT v_ctx + 1, v_g;
END
$fn$
