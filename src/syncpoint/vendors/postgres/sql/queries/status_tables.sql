-- Watched tables with the state of their triggers: name:tgenabled of each trigger that
-- runs the table's capture function (O/A enabled, D disabled, R replica only).
SELECT t.schemaname, t.tablename, t.status, t.actions, t.trigger_name, t.debug, t.reason,
       t.version,
       ARRAY(SELECT g.tgname::text || ':' || g.tgenabled::text
               FROM pg_trigger g
              WHERE g.tgrelid = t.relid
                AND g.tgfoid = to_regprocedure(format('%%I.%%I()', %(schema)s::text, t.trigger_name))
              ORDER BY 1)
  FROM ${schema}.${tables} t
 ORDER BY t.schemaname, t.tablename
