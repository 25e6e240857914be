-- Whether conflict resolution's settings table exists where this connection looks for it.
SELECT EXISTS (
    SELECT 1 FROM pg_catalog.pg_tables
    WHERE schemaname = ANY (pg_catalog.current_schemas(false)) AND tablename = %(name)s
)
