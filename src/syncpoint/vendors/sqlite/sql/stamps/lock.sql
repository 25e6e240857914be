-- SQLite: the caller's BEGIN IMMEDIATE already holds the database write lock.
SELECT ?, ?
