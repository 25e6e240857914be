-- Text timestamps without an offset are UTC; deferrable constraints wait for COMMIT.
-- One round trip: both settings sent as one simple query (no parameters).
SET LOCAL TIME ZONE 'UTC'; SET CONSTRAINTS ALL DEFERRED
