-- ddl_command_start of DROP TABLE and DROP SCHEMA: which partitions of the watched tables
-- hold rows now (a relation file that is not empty, read without taking a lock on them),
-- for on_drop to know that a dropped partition took rows with it (trigger capture's
-- install/140_fn_on_drop.sql, log capture's log/install/050_fn_on_ddl.sql).
CREATE OR REPLACE FUNCTION ${schema}.${fn_on_drop_start}() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    v_held text;
BEGIN
    IF to_regclass($lit{tables_q}) IS NULL THEN
        RETURN;
    END IF;
    SELECT string_agg(p.relid::oid::text || ':' || w.id::text, ',') INTO v_held
      FROM ${schema}.${tables} w,
           pg_partition_tree(w.relid) p
     WHERE w.status = 'OK' AND w.relid IS NOT NULL AND p.isleaf AND p.relid <> w.relid
       AND coalesce((pg_stat_file(pg_relation_filepath(p.relid), true)).size, 0) > 0;
    PERFORM set_config($lit{origin_guc} || '_held', coalesce(v_held, ''), true);
END
$fn$
