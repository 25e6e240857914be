-- Changing a watched table's actions or debug flag in the tables table regenerates its
-- capture function and triggers at once.
CREATE OR REPLACE FUNCTION ${schema}.${fn_tables_changed}() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    IF NEW.relid IS NOT NULL THEN
        PERFORM ${schema}.${fn_make}(NEW.id);
    END IF;
    RETURN NULL;
END
$fn$
---
CREATE OR REPLACE TRIGGER ${trg_tables}
    AFTER UPDATE OF actions, debug ON ${schema}.${tables}
    FOR EACH ROW
    WHEN (OLD.actions IS DISTINCT FROM NEW.actions OR OLD.debug IS DISTINCT FROM NEW.debug)
    EXECUTE FUNCTION ${schema}.${fn_tables_changed}()
