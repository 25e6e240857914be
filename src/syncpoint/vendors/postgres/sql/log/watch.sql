-- A watched table under log capture: its identity and shape, status OK (no trigger).
UPDATE ${schema}.${tables}
   SET relid = to_regclass(format('%%I.%%I', %(schema)s::text, %(table)s::text)),
       shape = ${schema}.${fn_shape}(to_regclass(format('%%I.%%I', %(schema)s::text, %(table)s::text))),
       status = 'OK', reason = NULL, trigger_name = NULL
 WHERE schemaname = %(schema)s AND tablename = %(table)s
---
-- The decoder's view of it, from now on (kept as it is on a reinstall).
INSERT INTO ${schema}.${log_tables} (id, relid, schemaname, tablename, version, shape)
SELECT id, relid, schemaname, tablename, version, shape FROM ${schema}.${tables}
 WHERE schemaname = %(schema)s AND tablename = %(table)s
ON CONFLICT (id) DO NOTHING
---
SELECT ${schema}.${fn_part_watch}(relid) FROM ${schema}.${tables}
 WHERE schemaname = %(schema)s AND tablename = %(table)s
