-- Removes the triggers and the capture function of one watched table (install, when a
-- table left the channel file).
CREATE OR REPLACE FUNCTION ${schema}.${fn_drop}(p_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r record;
BEGIN
    -- not a trigger dropped by hand (install/115_fn_stop.sql)
    PERFORM set_config($lit{origin_guc} || '_making', '1', true);
    FOR r IN SELECT tg.tgname, tg.tgrelid::regclass::text AS rel
               FROM pg_trigger tg
               JOIN pg_proc p ON p.oid = tg.tgfoid
               JOIN pg_namespace n ON n.oid = p.pronamespace
              WHERE n.nspname = $lit{schema} AND p.proname = $lit{fn_prefix} || p_id LOOP
        EXECUTE format('DROP TRIGGER %I ON %s', r.tgname, r.rel);
    END LOOP;
    EXECUTE format('DROP FUNCTION IF EXISTS %I.%I()', $lit{schema}, $lit{fn_prefix} || p_id);
    PERFORM set_config($lit{origin_guc} || '_making', '', true);
END
$fn$
