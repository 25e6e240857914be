-- Log capture's objects of this prefix (the queue's go with the trigger capture's
-- uninstall): the partitions' TRUNCATE triggers, the publication, the functions and state.
DO $do$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT tg.tgname, tg.tgrelid::regclass::text AS rel
               FROM pg_catalog.pg_trigger tg
              WHERE tg.tgname = $lit{trg_part} LOOP
        EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', r.tgname, r.rel);
    END LOOP;
END
$do$
---
DROP PUBLICATION IF EXISTS ${pub}
---
DROP TABLE IF EXISTS ${schema}.${log_state}, ${schema}.${log_tables}
---
DROP FUNCTION IF EXISTS ${schema}.${fn_horizon}(), ${schema}.${fn_origin}(text),
    ${schema}.${fn_identity}(oid, text[]), ${schema}.${fn_part_trunc}(),
    ${schema}.${fn_part_watch}(oid), ${schema}.${fn_log_check}()
