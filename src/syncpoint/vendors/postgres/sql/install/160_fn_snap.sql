-- The snapshot of a tick, or an error when it does not exist: a reader must never take a
-- missing tick for an empty window.
CREATE OR REPLACE FUNCTION ${schema}.${fn_snap}(p_tick bigint) RETURNS pg_snapshot
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    v pg_snapshot;
BEGIN
    SELECT k.snapshot INTO v FROM ${schema}.${ticks} AS k WHERE k.tick_id = p_tick;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'no_data_found',
            MESSAGE = format('syncpoint: tick %s does not exist at this location (purged, '
                             'or not made yet)', p_tick);
    END IF;
    RETURN v;
END
$fn$
