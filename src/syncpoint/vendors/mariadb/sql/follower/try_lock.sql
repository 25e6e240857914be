-- A named lock of the connection: the server releases it when the connection ends.
SELECT GET_LOCK(%s, 0)
