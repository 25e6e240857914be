-- What a tick drains up to: the clock, then the start of the oldest transaction of this
-- database holding an xid, then the WAL insert position, read in that order. A transaction
-- whose commit time is before the clock either had written its commit record before the
-- position was read (then it is at or below it) or still held its xid when the oldest
-- start was read (then the guaranteed time is at or before its start). The UPDATE makes
-- this a writing transaction: its synchronous commit flushes the WAL past the position, so
-- that decoding (which reads flushed WAL only) reaches it. SECURITY DEFINER:
-- pg_stat_activity shows other users' transaction starts only to privileged roles.
CREATE OR REPLACE FUNCTION ${schema}.${fn_horizon}()
RETURNS TABLE (o_clock timestamptz, o_oldest timestamptz, o_lsn pg_lsn)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
SET synchronous_commit = on AS $fn$
BEGIN
    o_clock := clock_timestamp();
    PERFORM pg_stat_clear_snapshot();
    SELECT min(a.xact_start) INTO o_oldest
      FROM pg_stat_activity a
     WHERE a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid()
       AND a.datname = current_database();
    o_lsn := pg_current_wal_insert_lsn();
    UPDATE ${schema}.${log_state} SET horizon = o_lsn;
    RETURN NEXT;
END
$fn$
---
-- set_origin: a transactional logical message, decoded in its place among the
-- transaction's changes: the changes after it carry the origin. SECURITY DEFINER so that any
-- applying user may emit it.
CREATE OR REPLACE FUNCTION ${schema}.${fn_origin}(p_origin text) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
    SELECT FROM pg_logical_emit_message(true, $lit{msg_origin}, p_origin)
$fn$
---
GRANT EXECUTE ON FUNCTION ${schema}.${fn_origin}(text) TO PUBLIC
