-- The deleted row of a tombstone, where cdr add ran before it was kept.
ALTER TABLE ${tombstones} ADD COLUMN deleted_row TEXT
