-- A copy task's records (typed_records_create.sql) as the window's typed operations
-- (window/ops_typed.sql, $raw{select}: each record's JSON parsed once, here, in the task's
-- backend rather than by the round's apply), into the window's typed staging; each value
-- cast to its staged type by the type's input, as the COPY of a PostgreSQL source's
-- operations reads it.
INSERT INTO $raw{staging} (sp_repl_key, sp_sub, sp_action, sp_key $raw{columns})
$raw{select}
