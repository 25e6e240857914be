-- The current columns of the watched tables, compared by poll_ddl with cols_snapshot.
CREATE OR REPLACE VIEW ${cols_view} AS
$raw{columns_select}
  JOIN ${tables} w
    ON CAST(c.TABLE_SCHEMA AS BINARY) = CAST(w.schemaname AS BINARY)
   AND CAST(c.TABLE_NAME AS BINARY) = CAST(w.tablename AS BINARY)
 WHERE c.TABLE_SCHEMA = $lit{schema}
