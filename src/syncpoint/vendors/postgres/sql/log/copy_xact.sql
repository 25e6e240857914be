-- What every record of a batch copied in carries as the inserted ones do: the batch
-- transaction's id (the tick after its commit sees them) and the database.
SELECT pg_current_xact_id()::text, current_database()
