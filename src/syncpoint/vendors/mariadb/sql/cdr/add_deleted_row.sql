-- The deleted row of a tombstone, where cdr add ran before it was kept.
ALTER TABLE ${tombstones} ADD COLUMN IF NOT EXISTS deleted_row LONGTEXT NULL
