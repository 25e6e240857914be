-- The bookkeeping tables, once no table of the location is under conflict resolution.
DROP TABLE IF EXISTS ${conflicts}
---
DROP TABLE IF EXISTS ${tombstones}
---
DROP TABLE IF EXISTS ${cdr}
---
DROP TABLE IF EXISTS ${hops}
