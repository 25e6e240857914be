-- Whether any range is recorded: with none (ranges go with the records they cover when they
-- are purged), a record at or below max_key that is not stamped is in no tick yet.
SELECT EXISTS (SELECT 1 FROM ${tick_ranges})
