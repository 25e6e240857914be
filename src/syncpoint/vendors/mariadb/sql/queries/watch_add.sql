-- A table starts being watched: status CREATING until its triggers exist.
INSERT INTO ${tables} (catalogname, schemaname, tablename, actions, status, repl_key, debug,
                       version, keycols)
VALUES (%(schema)s, %(schema)s, %(table)s, %(actions)s, 'CREATING',
        (SELECT COALESCE(MAX(repl_key), 0) FROM ${items}), %(debug)s, 1, %(keycols)s)
ON DUPLICATE KEY UPDATE actions = VALUES(actions), debug = VALUES(debug),
                        keycols = VALUES(keycols)
