-- Whether conflict resolution's settings table exists in this database.
SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = :name
