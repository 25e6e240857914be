-- Text timestamps without an offset are UTC; deferrable constraints wait for COMMIT.
-- A round's sorts (the netting's, the upsert's in position order) and its parsed rows stay
-- in memory up to work_mem; at the default 4 MB a W1 round's upsert sorted on disk, and
-- took 1.6x as long. One backend, the transaction's own setting.
-- One round trip: the settings sent as one simple query (no parameters).
SET LOCAL TIME ZONE 'UTC'; SET CONSTRAINTS ALL DEFERRED; SET LOCAL work_mem = '128MB'
