-- Text timestamps without an offset are UTC; deferrable constraints wait for COMMIT.
SET LOCAL TIME ZONE 'UTC'
---
SET CONSTRAINTS ALL DEFERRED
