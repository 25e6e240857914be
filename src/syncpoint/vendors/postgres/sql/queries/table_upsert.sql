-- A watched table enters as CREATING (its trigger does not exist yet); repl_key is the
-- queue's high-water mark when it was first added. A changed key drops the remembered
-- attnums so that they are looked up again by name.
INSERT INTO ${schema}.${tables} AS t
       (catalogname, schemaname, tablename, actions, status, repl_key, debug, key_columns)
VALUES (current_database(), %(schema)s, %(table)s, %(actions)s, 'CREATING',
        (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${schema}.${seq}),
        %(debug)s, %(key)s)
ON CONFLICT (schemaname, tablename) DO UPDATE
   SET actions = EXCLUDED.actions, debug = EXCLUDED.debug, status = 'CREATING',
       key_columns = EXCLUDED.key_columns,
       key_attnums = CASE WHEN t.key_columns IS NOT DISTINCT FROM EXCLUDED.key_columns
                          THEN t.key_attnums END
RETURNING id
