-- A PostgreSQL source's typed operations (ops_typed.sql, $raw{select}) streamed out of the
-- source by COPY, into the target's COPY of the window's typed staging.
COPY (
$raw{select}
) TO STDOUT
