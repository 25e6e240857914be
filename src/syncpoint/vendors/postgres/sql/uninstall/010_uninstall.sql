-- Removes every object of this prefix and nothing else: exact names, and the per-table
-- capture functions by an anchored pattern (prefix, "capture_", digits), which no object
-- of another prefix can match. The event triggers go first so that dropping the rest is
-- not itself captured.
DROP EVENT TRIGGER IF EXISTS ${et_ddl}
---
DROP EVENT TRIGGER IF EXISTS ${et_drop}
---
DROP EVENT TRIGGER IF EXISTS ${et_start}
---
DO $do$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT tg.tgname, tg.tgrelid::regclass::text AS rel
               FROM pg_catalog.pg_trigger tg
               JOIN pg_catalog.pg_proc p ON p.oid = tg.tgfoid
               JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
              WHERE n.nspname = $lit{schema} AND p.proname ~ $lit{fn_pattern} LOOP
        EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', r.tgname, r.rel);
    END LOOP;
    FOR r IN SELECT p.oid::regprocedure::text AS fn
               FROM pg_catalog.pg_proc p
               JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
              WHERE n.nspname = $lit{schema} AND p.proname ~ $lit{fn_pattern} LOOP
        EXECUTE 'DROP FUNCTION ' || r.fn;
    END LOOP;
END
$do$
---
DROP TABLE IF EXISTS ${schema}.${items}, ${schema}.${ddl_log}, ${schema}.${tables}, ${schema}.${service},
    ${schema}.${ticks}, ${schema}.${debug}, ${schema}.${fresh}, ${schema}.${parts}
---
DROP SEQUENCE IF EXISTS ${schema}.${seq}
---
DROP FUNCTION IF EXISTS ${schema}.${fn_make}(integer), ${schema}.${fn_drop}(integer),
    ${schema}.${fn_shape}(oid), ${schema}.${fn_added}(oid, jsonb, jsonb), ${schema}.${fn_on_ddl}(), ${schema}.${fn_on_drop}(), ${schema}.${fn_on_drop_start}(),
    ${schema}.${fn_ddl_tables}(),
    ${schema}.${fn_tick}(), ${schema}.${fn_snap}(bigint), ${schema}.${fn_tables_changed}(),
    ${schema}.${fn_poll}(), ${schema}.${fn_gap}(integer), ${schema}.${fn_stop}(integer, text),
    ${schema}.${fn_parts}(boolean)
