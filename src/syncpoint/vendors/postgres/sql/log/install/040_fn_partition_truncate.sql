-- A partition's TRUNCATE is not sent by pgoutput when the publication publishes through the
-- partitioned root (the root's TRUNCATE is): the rows would stay at the targets. Before a
-- partition of a watched table is truncated, its rows are deleted instead, and those
-- deletes are published (as the root's). A statement trigger on TRUNCATE only: the
-- application's other writes never run it.
CREATE OR REPLACE FUNCTION ${schema}.${fn_part_trunc}() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    EXECUTE format('DELETE FROM %I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
    RETURN NULL;
END
$fn$
---
-- The TRUNCATE triggers of every partition (at every level) of the watched partitioned
-- tables; a partition created, attached or detached later is seen to by the DDL event
-- trigger (or the next tick's log_check). The trigger's argument is the partitioned
-- table's oid: a table detached holding rows still says whose rows it took away.
CREATE OR REPLACE FUNCTION ${schema}.${fn_part_watch}(p_rel oid) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r record;
BEGIN
    -- its ALTERs fire the DDL event trigger, which must not come back here
    PERFORM set_config($lit{origin_guc} || '_making', '1', true);
    FOR r IN SELECT p.relid::regclass::text AS name
               FROM pg_partition_tree(p_rel) p WHERE p.relid <> p_rel LOOP
        EXECUTE format('CREATE OR REPLACE TRIGGER %I BEFORE TRUNCATE ON %s '
                       'FOR EACH STATEMENT EXECUTE FUNCTION %s(%L)',
                       $lit{trg_part}, r.name, $lit{fn_part_trunc_q}, p_rel::text);
        EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', r.name, $lit{trg_part});
    END LOOP;
    -- a table detached from its partitioned table is the application's own again
    FOR r IN SELECT tg.tgrelid::regclass::text AS name
               FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid
              WHERE tg.tgname = $lit{trg_part} AND NOT c.relispartition LOOP
        EXECUTE format('DROP TRIGGER %I ON %s', $lit{trg_part}, r.name);
    END LOOP;
    PERFORM set_config($lit{origin_guc} || '_making', '', true);
END
$fn$
