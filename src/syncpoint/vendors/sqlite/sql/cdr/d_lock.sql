-- Nothing to lock: the round's BEGIN IMMEDIATE holds the only write lock of the file.
SELECT 1
