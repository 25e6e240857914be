-- Tables of the main schema; the caller keeps those of its prefix.
SELECT name FROM sqlite_master WHERE type = 'table'
