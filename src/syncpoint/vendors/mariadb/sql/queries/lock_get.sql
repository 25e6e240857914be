-- A named lock of the prefix (names.lock), waiting at most the given seconds: 1 when taken.
-- The server releases it when the connection ends.
SELECT GET_LOCK(%s, %s)
