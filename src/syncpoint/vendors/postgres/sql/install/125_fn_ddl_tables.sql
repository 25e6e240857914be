-- The tables the commands of the firing ddl_command_end event made or changed, with their
-- schema and name as they are now (a table made and dropped again in the same statement is
-- not among them), and the watched tables with a column of an enum type the event altered
-- (a label added or renamed: their shapes hold the labels). Both capture kinds' ddl_command_end functions (install/130_fn_on_ddl.sql,
-- log/install/050_fn_on_ddl.sql) start from it; it can only be called while one fires.
CREATE OR REPLACE FUNCTION ${schema}.${fn_ddl_tables}()
RETURNS TABLE (objid oid, schema_name text, table_name text)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
    SELECT DISTINCT d.objid, n.nspname::text, c.relname::text
      FROM pg_event_trigger_ddl_commands() d
      JOIN pg_class c ON c.oid = d.objid
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE d.object_type IN ('table', 'table column')
    UNION
    SELECT c.oid, n.nspname::text, c.relname::text
      FROM pg_event_trigger_ddl_commands() d
      JOIN pg_type ty ON d.objid IN (ty.oid, ty.typelem)
      JOIN pg_attribute a ON a.atttypid = ty.oid AND a.attnum > 0 AND NOT a.attisdropped
      JOIN ${schema}.${tables} w ON w.relid = a.attrelid
      JOIN pg_class c ON c.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE d.object_type = 'type'
$fn$
