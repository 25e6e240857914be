-- Whether a bookkeeping table has a column (bookkeeping made before the column existed).
SELECT EXISTS (
    SELECT 1 FROM information_schema.columns
    WHERE table_schema = ANY (pg_catalog.current_schemas(false)) AND table_name = %(name)s
      AND column_name = %(column)s
)
